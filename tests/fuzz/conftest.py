"""Fixtures of the fuzz tests: an open survey with a huge budget (import helpers from
``tests.fuzz.hostile``, never this file)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from surveys.models import Survey
from tests.fuzz.hostile import QUESTIONS
from testsupport import factories


@pytest.fixture
def open_survey(db: None, settings: Any) -> Survey:
    cache.clear()
    settings.DENIABLE_MAX_BUDGET_EPSILON = 1e9  # room for every fuzzed release
    owner = factories.make_user("hostile", "pw-hostile-123")
    body = {"title": "Hostile", "questions": QUESTIONS, "budget": {"epsilon": 1e9}}
    return factories.make_survey(owner, body)
