"""Migration 0009: a revoked invitation is marked ``sealed``; of the used ones only as many as the
survey has published submissions (here none: their uses still wait for a batch); unused ones are
not; and the partial index of the used-but-unsealed tail exists (issue 29). Runs on both
databases (PostgreSQL re-writes the used rows in digest order). The database is migrated forward
to the latest state in any case.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("surveys", "0008_admin_cap_budget_epsilon")]
AFTER = [("surveys", "0009_invitation_sealed")]

pytestmark = pytest.mark.both_backends


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor


@pytest.mark.django_db(transaction=True)
def test_used_invitations_are_sealed_and_the_tail_index_exists() -> None:
    try:
        executor = _migrate(BEFORE)
        apps = executor.loader.project_state(BEFORE).apps
        owner = apps.get_model("auth", "User").objects.create(username="migrator7")
        survey = apps.get_model("surveys", "Survey").objects.create(
            owner=owner, title="Old", slug="old-invites", status="open", access="invite"
        )
        Invitation = apps.get_model("surveys", "Invitation")
        for i in range(6):
            Invitation.objects.create(survey=survey, digest=f"{i:064x}", used=i < 4, revoked=i == 3)
        executor = _migrate(AFTER)
        apps = executor.loader.project_state(AFTER).apps
        rows = apps.get_model("surveys", "Invitation").objects.filter(survey_id=survey.pk)
        assert sorted(rows.values_list("digest", "used", "sealed")) == [
            (f"{i:064x}", i < 4, i == 3) for i in range(6)
        ]
        with connection.cursor() as cursor:
            indexes = connection.introspection.get_constraints(cursor, "surveys_invitation")
        assert indexes["invitation_used_unsealed"]["columns"] == ["survey_id"]
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
