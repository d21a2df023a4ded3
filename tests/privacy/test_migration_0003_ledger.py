"""Migration privacy 0003: stored ledger entries move to the fixed-meaning encoding of
``dpcore.central.event_codec``, and every survey's spent budget is the same before and after.

The privacy app is migrated back to 0002, entries are written in the old format with the
historical models, then migrated forward (and back, and forward again); the database ends at the
latest state in any case.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from dpcore.central import accounting, event_codec
from dpcore.central.events import DiscreteLaplaceEvent, PureDPEvent, ZCDPEvent

BEFORE = [("privacy", "0002_release_results_immutable_trigger")]
AFTER = [("privacy", "0003_ledger_event_types")]

OLD = [
    {"type": "laplace", "epsilon_each": 0.12000000000000001, "count": 5},
    {"type": "zcdp", "rho": 0.05000000000000001},
    {"type": "pure", "epsilon": 0.3},
]
NEW = [
    {"type": "discrete_laplace", "epsilon_each": 0.12000000000000001, "count": 5},
    {"type": "zcdp", "rho": 0.05000000000000001, "count": 1},
    {"type": "pure_dp", "epsilon_each": 0.3, "count": 1},
]
# What the old entries meant (LaplaceEvent's default was discrete=True).
MEANT = [
    *[DiscreteLaplaceEvent(0.12000000000000001)] * 5,
    ZCDPEvent(0.05000000000000001),
    PureDPEvent(0.3),
]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor


def _write_old_entries(apps: Any) -> int:
    User = apps.get_model("auth", "User")
    Survey = apps.get_model("surveys", "Survey")
    Release = apps.get_model("privacy", "Release")
    LedgerEntry = apps.get_model("privacy", "LedgerEntry")
    owner = User.objects.create(username="ledger-migrator")
    survey = Survey.objects.create(owner=owner, title="Ledger", slug="ledger-migration")
    for event in OLD:
        release = Release.objects.create(
            survey=survey,
            mechanism="laplace",
            noise_scale=1.0,
            l1_sensitivity=1.0,
            l2_sensitivity=1.0,
        )
        LedgerEntry.objects.create(survey=survey, release=release, event=event)
    return int(survey.pk)


def _stored(apps: Any, survey_id: int) -> list[dict[str, Any]]:
    LedgerEntry = apps.get_model("privacy", "LedgerEntry")
    entries = LedgerEntry.objects.filter(survey_id=survey_id).order_by("charged_at", "id")
    return [entry.event for entry in entries]


@pytest.mark.django_db(transaction=True)
def test_old_ledger_entries_are_rewritten_and_account_the_same():
    try:
        executor = _migrate(BEFORE)
        survey_id = _write_old_entries(executor.loader.project_state(BEFORE).apps)

        executor = _migrate(AFTER)
        after = _stored(executor.loader.project_state(AFTER).apps, survey_id)
        assert after == NEW
        decoded = [event for record in after for event in event_codec.decode(record)]
        assert decoded == MEANT
        for delta in (1e-9, 1e-5, 1e-3):
            assert accounting.epsilon_spent(decoded, delta) == accounting.epsilon_spent(
                MEANT, delta
            )

        executor = _migrate(BEFORE)  # backwards: the old encoding, unchanged
        assert _stored(executor.loader.project_state(BEFORE).apps, survey_id) == OLD
        executor = _migrate(AFTER)
        assert _stored(executor.loader.project_state(AFTER).apps, survey_id) == NEW
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_codec_refuses_the_old_tags():
    for record in OLD[:1] + OLD[2:]:
        with pytest.raises(ValueError, match="old encoding"):
            event_codec.decode(record)
