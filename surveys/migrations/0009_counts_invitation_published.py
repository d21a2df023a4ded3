"""Invitation.published (issue 21, items 3–4): a use is shown only once its batch is published.

Existing rows: a revoked token is final (published); of each survey's used tokens, as many as
it has published submissions are marked published (in digest order: a token is not linked to
its submission), so the waiting tail keeps reading as unused.
"""

from django.db import migrations, models


def _mark_published(apps, schema_editor):
    Invitation = apps.get_model("surveys", "Invitation")
    Submission = apps.get_model("surveys", "Submission")
    Invitation.objects.filter(revoked=True).update(published=True)
    surveys = (
        Invitation.objects.filter(used=True, revoked=False)
        .values_list("survey_id", flat=True)
        .distinct()
    )
    for survey_id in surveys:
        sealed = Submission.objects.filter(survey_id=survey_id, sealed=True).count()
        ids = list(
            Invitation.objects.filter(survey_id=survey_id, used=True, revoked=False)
            .order_by("digest")
            .values_list("pk", flat=True)[:sealed]
        )
        Invitation.objects.filter(pk__in=ids).update(published=True)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0008_admin_cap_budget_epsilon"),
    ]

    operations = [
        migrations.AddField(
            model_name="invitation",
            name="published",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.RunPython(_mark_published, migrations.RunPython.noop),
    ]
