"""Migration 0009 (Invitation.sealed): rows written before it read as they would have been
written after it — a revoked token is final, and of each survey's used tokens only as many as
it has published submissions are shown as used, so the waiting tail still reads as unused."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.test import override_settings

from surveys.models import Invitation
from surveys.services import invitation_counts, invitations_revoke
from testsupport import factories
from testsupport.factories import survey_body

K = 3
migration = importlib.import_module("surveys.migrations.0009_invitation_sealed")


@pytest.mark.django_db
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_existing_invitations_are_marked_as_their_batches_were_published(alice) -> None:
    survey = factories.make_survey(alice, survey_body(access="invite"))
    survey.refresh_from_db()
    tokens = factories.invitations_create(survey=survey, count=2 * K)
    for token in tokens[: K + 1]:  # one batch published, one submission waiting
        factories.submit(survey, token=token)
    after = invitation_counts(survey=survey)
    # The state before the migration: no column, so nothing published and a revoke as it was.
    Invitation.objects.filter(survey=survey).update(sealed=False)
    Invitation.objects.filter(survey=survey, used=False).update(used=True, revoked=True)
    migration.forward(apps, None)
    counts = invitation_counts(survey=survey)
    assert counts.used == K == after.used
    assert counts.revoked == K - 1  # the unused ones; the waiting use is neither
    assert counts.remaining == 1
    assert Invitation.objects.filter(survey=survey, used=True, sealed=False).count() == 1
    # Revoking now hides the waiting use among the revoked, as for new rows.
    assert invitations_revoke(survey=survey) == 1
