"""Database-level guard: a shuffled file, once stored, is never changed (issue 27).

Two different files of one survey could be differenced; ``ShuffledExport`` refuses a second save
and a deletion other than its survey's in Python, and this trigger also stops bulk ``.update()``
calls and manual SQL. PostgreSQL: a PL/pgSQL trigger; SQLite: ``RAISE(ABORT)``.
"""

from __future__ import annotations

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION surveys_shuffledexport_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'shuffled file % is stored; it is never changed', OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS surveys_shuffledexport_immutable ON surveys_shuffledexport;
CREATE TRIGGER surveys_shuffledexport_immutable BEFORE UPDATE ON surveys_shuffledexport
    FOR EACH ROW EXECUTE FUNCTION surveys_shuffledexport_immutable();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS surveys_shuffledexport_immutable ON surveys_shuffledexport;
DROP FUNCTION IF EXISTS surveys_shuffledexport_immutable();
"""
SQLITE_FORWARD = """
CREATE TRIGGER IF NOT EXISTS surveys_shuffledexport_immutable
BEFORE UPDATE ON surveys_shuffledexport
BEGIN
    SELECT RAISE(ABORT, 'shuffled file is stored; it is never changed');
END;
"""
SQLITE_BACKWARD = "DROP TRIGGER IF EXISTS surveys_shuffledexport_immutable;"


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_FORWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_FORWARD)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_BACKWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("surveys", "0011_shuffled_export")]

    operations = [migrations.RunPython(forward, backward)]
