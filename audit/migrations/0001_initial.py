import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="Entry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ("actor_pk", models.BigIntegerField(blank=True, null=True)),
                ("actor", models.CharField(blank=True, max_length=150)),
                ("action", models.CharField(max_length=64)),
                ("survey_pk", models.BigIntegerField(blank=True, null=True)),
                ("survey_slug", models.CharField(blank=True, max_length=32)),
                ("detail", models.JSONField(blank=True, default=dict)),
            ],
            options={
                "db_table": "audit_entry",
                "ordering": ["-at", "-id"],
                "verbose_name_plural": "entries",
                "indexes": [models.Index(fields=["survey_pk", "-at"], name="audit_survey_at")],
            },
        ),
    ]
