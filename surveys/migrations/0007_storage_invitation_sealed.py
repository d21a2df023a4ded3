"""Used invitations marked ``sealed`` once their batch is published (issue 29).

Publishing a batch used to re-write *every* used invitation of the survey (O(n) per batch). Now it
re-writes only the ``used AND NOT sealed`` ones, found through the partial index
``invitation_used_unsealed``. Every invitation used before this migration is marked sealed here:
on PostgreSQL by re-writing them in digest order in this one transaction (so each carries this
migration's ``xmin`` and key-ordered ``ctid``, as the latest batch's re-write left them), on SQLite
by one ``UPDATE`` (rows do not move; SQLite stores no transaction id).
"""

from __future__ import annotations

from django.db import migrations, models


def forward(apps, schema_editor) -> None:
    connection = schema_editor.connection
    table = "surveys_invitation"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"SELECT * FROM {table} LIMIT 0")  # noqa: S608
            columns = [c.name for c in cursor.description]
            names = ", ".join(f'"{c}"' for c in columns)
            values = ", ".join("TRUE" if c == "sealed" else f'"{c}"' for c in columns)
            cursor.execute(
                f"WITH moved AS (DELETE FROM {table} WHERE used RETURNING *) "  # noqa: S608
                f"INSERT INTO {table} ({names}) SELECT {values} FROM moved ORDER BY digest"
            )
            # The foreign keys are DEFERRABLE INITIALLY DEFERRED: check them now, or the index
            # created next in this transaction fails ("pending trigger events").
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        else:
            cursor.execute(f"UPDATE {table} SET sealed = 1 WHERE used")  # noqa: S608


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0006_survey_tool"),
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
