"""Database-level guard: once a release is ``done`` its results and status never change.

``Release.save`` refuses such writes in Python; this trigger also stops bulk ``.update()`` calls
and manual SQL. PostgreSQL: a PL/pgSQL trigger; SQLite: ``RAISE(ABORT)``.
"""

from __future__ import annotations

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION privacy_release_results_immutable() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'done' AND (NEW.status <> 'done'
            OR NEW.results::text IS DISTINCT FROM OLD.results::text) THEN
        RAISE EXCEPTION 'release % is done; its results are immutable', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS privacy_release_results_immutable ON privacy_release;
CREATE TRIGGER privacy_release_results_immutable BEFORE UPDATE ON privacy_release
    FOR EACH ROW EXECUTE FUNCTION privacy_release_results_immutable();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS privacy_release_results_immutable ON privacy_release;
DROP FUNCTION IF EXISTS privacy_release_results_immutable();
"""
SQLITE_FORWARD = """
CREATE TRIGGER IF NOT EXISTS privacy_release_results_immutable
BEFORE UPDATE ON privacy_release
WHEN OLD.status = 'done' AND (NEW.status <> 'done' OR NEW.results IS NOT OLD.results)
BEGIN
    SELECT RAISE(ABORT, 'release is done; its results are immutable');
END;
"""
SQLITE_BACKWARD = "DROP TRIGGER IF EXISTS privacy_release_results_immutable;"


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
    dependencies = [("privacy", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
