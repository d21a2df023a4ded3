"""One row per submission (its reported answers as JSON) and counter *vectors* per slice.

Data: each submission's reports become its ``answers`` document, then every survey's tallies are
recounted from those documents with the same slot layout the hot path uses
(``surveys.tally_layout``), so counts are preserved exactly.
"""

from __future__ import annotations

from django.db import migrations, models

import surveys.fields
from surveys.tally_layout import tally_layout, tally_recount

SHARDS = 16


def reports_to_answers(apps, schema_editor):
    Submission = apps.get_model("surveys", "Submission")
    Report = apps.get_model("surveys", "Report")
    pending: dict = {}
    reports = Report.objects.select_related("question").order_by("submission_id")
    for report in reports.iterator(chunk_size=5000):
        q = report.question
        if q.kind == "yes_no":
            value = report.value_bool
        elif q.kind == "number":
            value = report.value_number
        else:
            value = report.value_text
        if value is not None:
            pending.setdefault(report.submission_id, {})[q.key] = value
        if len(pending) >= 1000:
            _flush(Submission, pending)
    _flush(Submission, pending)


def _flush(Submission, pending: dict) -> None:
    for sid, answers in pending.items():
        Submission.objects.filter(pk=sid).update(answers=answers)
    pending.clear()


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
