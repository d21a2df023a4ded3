"""Every index that starts with ``survey_id`` finds a survey's unsealed tail by its condition.

Submissions and invitations had the foreign key's own index on ``survey_id`` alone. Which index
PostgreSQL uses for a tail statement (``survey_id = %s AND NOT sealed``) depends on its
statistics; for a survey they had not seen yet (one row estimated either way) it chose that
index, with ``NOT sealed`` as a filter, so every submission counted the tail over all the
survey's published rows (the throughput benchmark: 5 ms per submission at 16,326 rows, on a
server without autovacuum). The foreign-key index is replaced by (survey, sealed) on
submissions and (survey, sealed, used) on invitations, which serve every reader of a survey's
rows as before and find the tail by their index condition (tests/surveys/test_query_plans.py
leaves each index alone in turn and plans the tail statements with it).

The schema is changed without Django's ``AlterField``: on SQLite that re-makes the table, which
would lose the submissions table's ``WITHOUT ROWID`` (migration 0005: no arrival-ordered rowid).
The new indexes are created first, then the old ones dropped (found by their one column, the
partial tail indexes excepted). Creating an index blocks writes to the table while it builds:
on a large table, run this migration when few respondents are answering.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

TAIL_INDEXES = {"submission_unsealed", "invitation_used_unsealed"}


def _survey_only_indexes(schema_editor: Any, table: str) -> list[str]:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return sorted(
        name
        for name, info in constraints.items()
        if info["index"]
        and not info["unique"]
        and not info["primary_key"]
        and info["columns"] == ["survey_id"]
        and name not in TAIL_INDEXES
    )


def forward(apps: Any, schema_editor: Any) -> None:
    for model_name, index in (
        ("Submission", models.Index(fields=["survey", "sealed"], name="submission_survey_sealed")),
        (
            "Invitation",
            models.Index(
                fields=["survey", "sealed", "used"], name="invitation_survey_sealed_used"
            ),
        ),
    ):
        model = apps.get_model("surveys", model_name)
        schema_editor.add_index(model, index)
        quote = schema_editor.quote_name
        for name in _survey_only_indexes(schema_editor, model._meta.db_table):
            schema_editor.execute(f"DROP INDEX {quote(name)}")


def backward(apps: Any, schema_editor: Any) -> None:
    quote = schema_editor.quote_name
    for table, name, old in (
        ("surveys_submission", "submission_survey_sealed", "surveys_submission_survey_id_100d3b00"),
        ("surveys_invitation", "invitation_survey_sealed_used", "surveys_invitation_survey_id_d0534764"),
    ):
        schema_editor.execute(f"CREATE INDEX {quote(old)} ON {quote(table)} ({quote('survey_id')})")
        schema_editor.execute(f"DROP INDEX {quote(name)}")


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0013_population_shares"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="invitation",
                    name="survey",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.CASCADE,
                        related_name="invitations",
                        to="surveys.survey",
                    ),
                ),
                migrations.AlterField(
                    model_name="submission",
                    name="survey",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.CASCADE,
                        related_name="submissions",
                        to="surveys.survey",
                    ),
                ),
                migrations.AddIndex(
                    model_name="invitation",
                    index=models.Index(
                        fields=["survey", "sealed", "used"], name="invitation_survey_sealed_used"
                    ),
                ),
                migrations.AddIndex(
                    model_name="submission",
                    index=models.Index(fields=["survey", "sealed"], name="submission_survey_sealed"),
                ),
            ],
            database_operations=[migrations.RunPython(forward, backward)],
        ),
    ]
