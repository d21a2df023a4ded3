"""Invitation.sealed (issue 21 items 3–4, issue 29): a use is shown, and its mark re-written, only
with its batch.

Existing rows read as they would have been written after this migration: a revoked token is
final (sealed); of each survey's used tokens, as many as it has published submissions are sealed
(in digest order: a token is not linked to its submission), so the waiting tail keeps reading as
unused. On PostgreSQL the used rows are then re-written in digest order in this one transaction
(each carries this migration's ``xmin`` and a key-ordered ``ctid``, as a batch's re-write leaves
them); SQLite stores no transaction id and the rows keep their key order. Publishing then
re-writes only the ``used AND NOT sealed`` rows, through the partial index
``invitation_used_unsealed`` (O(k) per batch).
"""

from __future__ import annotations

from typing import Any

from django.db import connection as default_connection
from django.db import migrations, models


def forward(apps: Any, schema_editor: Any) -> None:
    Invitation = apps.get_model("surveys", "Invitation")
    Submission = apps.get_model("surveys", "Submission")
    Invitation.objects.filter(revoked=True).update(sealed=True)
    surveys = (
        Invitation.objects.filter(used=True, revoked=False)
        .values_list("survey_id", flat=True)
        .distinct()
    )
    for survey_id in surveys:
        published = Submission.objects.filter(survey_id=survey_id, sealed=True).count()
        ids = list(
            Invitation.objects.filter(survey_id=survey_id, used=True, revoked=False)
            .order_by("digest")
            .values_list("pk", flat=True)[:published]
        )
        Invitation.objects.filter(pk__in=ids).update(sealed=True)
    connection = schema_editor.connection if schema_editor is not None else default_connection
    if connection.vendor != "postgresql":
        return
    table = "surveys_invitation"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} LIMIT 0")  # noqa: S608
        names = ", ".join(f'"{c.name}"' for c in cursor.description)
        cursor.execute(
            f"WITH moved AS (DELETE FROM {table} WHERE used RETURNING *) "  # noqa: S608
            f"INSERT INTO {table} ({names}) SELECT {names} FROM moved ORDER BY digest"
        )
        # The foreign keys are DEFERRABLE INITIALLY DEFERRED: check them now, or the index
        # created next in this transaction fails ("pending trigger events").
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0008_admin_cap_budget_epsilon"),
    ]

    operations = [
        migrations.AddField(
            model_name="invitation",
            name="sealed",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(
                condition=models.Q(("sealed", False), ("used", True)),
                fields=["survey"],
                name="invitation_used_unsealed",
            ),
        ),
    ]
