"""Database-level guard: an audit entry is never updated or deleted.

``Entry.save``/``Entry.delete`` refuse such writes in Python; these triggers also stop bulk
``.update()``/``.delete()`` calls and manual SQL (like privacy's migration 0002 for release
results). PostgreSQL: a PL/pgSQL row trigger; SQLite: ``RAISE(ABORT)``. ``TRUNCATE`` (how
PostgreSQL's ``flush`` empties a test database) is a table owner's act and stays possible.
"""

from __future__ import annotations

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION audit_entry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_entry_append_only ON audit_entry;
CREATE TRIGGER audit_entry_append_only BEFORE UPDATE OR DELETE ON audit_entry
    FOR EACH ROW EXECUTE FUNCTION audit_entry_append_only();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS audit_entry_append_only ON audit_entry;
DROP FUNCTION IF EXISTS audit_entry_append_only();
"""
SQLITE_FORWARD = [
    """
CREATE TRIGGER IF NOT EXISTS audit_entry_no_update BEFORE UPDATE ON audit_entry
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only: UPDATE refused');
END;
""",
    """
CREATE TRIGGER IF NOT EXISTS audit_entry_no_delete BEFORE DELETE ON audit_entry
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only: DELETE refused');
END;
""",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS audit_entry_no_update;",
    "DROP TRIGGER IF EXISTS audit_entry_no_delete;",
]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_FORWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_BACKWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
