"""Unlinkable submissions (issue 11, item 1).

* ``sealed``: existing submissions are already in the tallies, so they are sealed (published).
* Fingerprints are recomputed without the invitation digest: the old ones hashed it with the
  answers, which named each response's invitation to anyone holding a database copy.
* PostgreSQL: submissions, used invitations and tallies are re-written in one transaction in key
  order (submission uuid4, invitation digest, slice), so their ``xmin`` is this migration's and
  their ``ctid`` order is not arrival order. (Old tuple versions stay in the heap until VACUUM:
  SECURITY.md says what to do.)
* SQLite: the submissions table is rebuilt WITHOUT ROWID (a rowid is assigned in arrival order;
  without it rows live in primary-key order). Django's SQLite schema editor rebuilds a table
  with a plain CREATE TABLE when a later migration alters it: ``tests/surveys/
  test_unlinkability.py::test_sqlite_submissions_table_has_no_rowid`` fails if that happens.
"""

from __future__ import annotations

import hashlib
import json

from django.db import migrations, models


def _fingerprint(survey_id: int, randomizer: str, answers: dict) -> str:
    canonical = json.dumps(
        {"survey": survey_id, "randomizer": randomizer, "answers": answers},
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _rewrite_pg(cursor, table: str, order_by: str, where: str = "TRUE") -> None:
    cursor.execute("DROP TABLE IF EXISTS deniable_rewrite")
    # Identifiers and clauses are constants of this module.
    temp = f"CREATE TEMPORARY TABLE deniable_rewrite AS SELECT * FROM {table} WHERE {where}"  # noqa: S608
    cursor.execute(temp)
    cursor.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM deniable_rewrite)")  # noqa: S608
    cursor.execute(f"INSERT INTO {table} SELECT * FROM deniable_rewrite ORDER BY {order_by}")  # noqa: S608
    cursor.execute("DROP TABLE deniable_rewrite")


def _without_rowid_sqlite(schema_editor) -> None:
    cursor = schema_editor.connection.cursor()
    table = "surveys_submission"
    cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [table])
    (create,) = cursor.fetchone()
    if create.rstrip().upper().endswith("WITHOUT ROWID"):
        return
    cursor.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL",
        [table],
    )
    indexes = [row[0] for row in cursor.fetchall()]
    head = f'CREATE TABLE "{table}"'
    assert create.startswith(head), create
    cursor.execute(create.replace(head, f'CREATE TABLE "{table}__new"', 1) + " WITHOUT ROWID")
    cursor.execute(f'INSERT INTO "{table}__new" SELECT * FROM "{table}" ORDER BY id')  # noqa: S608
    cursor.execute(f'DROP TABLE "{table}"')
    cursor.execute(f'ALTER TABLE "{table}__new" RENAME TO "{table}"')
    for sql in indexes:
        cursor.execute(sql)


def forward(apps, schema_editor) -> None:
    Submission = apps.get_model("surveys", "Submission")
    Submission.objects.update(sealed=True)
    rows = Submission.objects.values_list("id", "survey_id", "randomizer", "answers")
    changed = [
        Submission(id=sid, fingerprint=_fingerprint(survey_id, randomizer, answers))
        for sid, survey_id, randomizer, answers in rows.iterator(chunk_size=5000)
    ]
    Submission.objects.bulk_update(changed, ["fingerprint"], batch_size=1000)
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            _rewrite_pg(cursor, "surveys_submission", "id")
            _rewrite_pg(cursor, "surveys_invitation", "digest", "used")
            _rewrite_pg(cursor, "surveys_tally", "survey_id, group_key, group_value, shard")
    elif vendor == "sqlite":
        _without_rowid_sqlite(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0004_invitation_revoked"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="sealed",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(
                condition=models.Q(("sealed", False)),
                fields=["survey"],
                name="submission_unsealed",
            ),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
