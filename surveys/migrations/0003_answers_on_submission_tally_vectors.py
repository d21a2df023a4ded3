"""One row per submission (its reported answers as JSON) and counter *vectors* per slice; one
index fewer on submissions.

Data: each submission's reports become its ``answers`` document, then every survey's tallies are
recounted from those documents with the same slot layout the hot path uses
(``surveys.collection.tally_layout``), so counts are preserved exactly.
"""

from __future__ import annotations

from django.db import migrations, models

import surveys.fields
from surveys.collection.tally_layout import tally_layout, tally_recount

SHARDS = 16


# One set-based UPDATE per backend (a per-row loop would take minutes at 10⁶ submissions). Each
# report becomes a JSON value of its kind: yes_no → true/false, number → a number, else a string.
# Numbers must come back exactly and as floats, as the hot path stores them: PostgreSQL's float8
# text is the shortest exact form but drops ".0" of whole numbers (jsonb 43 reads back as int);
# SQLite's JSON functions print reals with 15 digits, so it gets printf's 17 ("%!" keeps ".0").
_ANSWERS_SQL = {
    "postgresql": (
        "UPDATE surveys_submission AS s SET answers = a.doc FROM ("
        " SELECT r.submission_id, jsonb_object_agg(q.key, CASE q.kind"
        "  WHEN 'yes_no' THEN to_jsonb(r.value_bool)"
        "  WHEN 'number' THEN (CASE WHEN r.value_number::text ~ '^-?[0-9]+$'"
        "   THEN r.value_number::text || '.0' ELSE r.value_number::text END)::jsonb"
        "  ELSE to_jsonb(r.value_text) END) AS doc"
        " FROM surveys_report AS r JOIN surveys_question AS q ON q.id = r.question_id"
        " WHERE coalesce(r.value_bool::text, r.value_text, r.value_number::text) IS NOT NULL"
        " GROUP BY r.submission_id) AS a WHERE a.submission_id = s.id"
    ),
    "sqlite": (
        "UPDATE surveys_submission AS s SET answers = a.doc FROM ("
        " SELECT r.submission_id, json_group_object(q.key, CASE q.kind"
        "  WHEN 'yes_no' THEN json(CASE WHEN r.value_bool THEN 'true' ELSE 'false' END)"
        "  WHEN 'number' THEN json(printf('%!.17g', r.value_number)) ELSE r.value_text END) AS doc"
        " FROM surveys_report AS r JOIN surveys_question AS q ON q.id = r.question_id"
        " WHERE coalesce(r.value_bool, r.value_text, r.value_number) IS NOT NULL"
        " GROUP BY r.submission_id) AS a WHERE a.submission_id = s.id"
    ),
}


def reports_to_answers(apps, schema_editor):
    schema_editor.execute(_ANSWERS_SQL[schema_editor.connection.vendor])


def recount_tallies(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Submission = apps.get_model("surveys", "Submission")
    Tally = apps.get_model("surveys", "Tally")
    for survey in Survey.objects.all().iterator():
        layout = tally_layout(survey.questions.order_by("position", "id"))
        rows = Submission.objects.filter(survey=survey).values_list("id", "answers")
        recount = tally_recount(layout, rows.iterator(chunk_size=5000), SHARDS)
        Tally.objects.bulk_create(
            [
                Tally(survey=survey, group_key=gk, group_value=gv, shard=shard, sums=sums)
                for (gk, gv, shard), sums in sorted(recount.items())
            ],
            batch_size=1000,
        )


class Migration(migrations.Migration):
    dependencies = [("surveys", "0002_report_submission_index_covered_by_unique")]

    operations = [
        # Redundant with the foreign key's index on survey; nothing filters by date.
        migrations.RemoveIndex(model_name="submission", name="surveys_sub_survey__97a91a_idx"),
        migrations.AddField(
            model_name="submission", name="answers", field=models.JSONField(default=dict)
        ),
        migrations.RunPython(reports_to_answers, migrations.RunPython.noop),
        migrations.DeleteModel(name="Report"),
        migrations.DeleteModel(name="Tally"),
        migrations.CreateModel(
            name="Tally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("group_key", models.CharField(blank=True, default="", max_length=64)),
                ("group_value", models.CharField(blank=True, default="", max_length=200)),
                ("shard", models.PositiveSmallIntegerField(default=0)),
                ("sums", surveys.fields.SumsVectorField(default=list)),
                (
                    "survey",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="tallies",
                        to="surveys.survey",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("survey", "group_key", "group_value", "shard"),
                        name="tally_slice_unique",
                    )
                ]
            },
        ),
        migrations.RunPython(recount_tallies, migrations.RunPython.noop),
    ]
