"""Migration 0008 (issue 21, item 2): budgets stored before the cap are lowered to it, once;
the others are left alone. Its function runs on today's models (the columns it touches are
unchanged), so no migrating back and forth is needed."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.test import override_settings

from surveys.models import Survey
from testsupport.factories import make_survey, make_user, reload, survey_body

pytestmark = pytest.mark.django_db

migration = importlib.import_module("surveys.migrations.0008_admin_cap_budget_epsilon")


@override_settings(DENIABLE_MAX_BUDGET_EPSILON=10.0)
def test_stored_budgets_above_the_cap_are_lowered_to_it() -> None:
    owner = make_user("owner")
    huge, small = make_survey(owner, survey_body()), make_survey(owner, survey_body())
    Survey.objects.filter(pk=huge.pk).update(budget_epsilon=1e308)  # as stored before the cap
    Survey.objects.filter(pk=small.pk).update(budget_epsilon=2.5)
    migration.clamp_budgets(apps, None)
    assert reload(huge).budget_epsilon == 10.0
    assert reload(small).budget_epsilon == 2.5
