"""Import the API keys of DRF's ``authtoken`` table (one never-expiring key per user, stored in
clear) as named, expiring tokens stored as SHA-256 digests, then blank the old table.

Scripts keep working with the key they have: the imported token is called "imported" and
expires 90 days after this migration runs (docs/accounts.md#tokens-issued-before). The plain-text
keys are deleted from ``authtoken_token`` (the app is no longer installed; its empty table is
left for an operator to drop). Read with SQL, since the authtoken models are not installed.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.db import migrations
from django.utils import timezone

LEGACY_TABLE = "authtoken_token"
IMPORTED_DAYS = 90


def import_tokens(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    expires = timezone.now() + timedelta(days=IMPORTED_DAYS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {LEGACY_TABLE}")  # noqa: S608
        rows = cursor.fetchall()
        ApiToken.objects.bulk_create(
            ApiToken(
                user_id=user_id,
                name="imported",
                digest=hashlib.sha256(key.encode()).hexdigest(),
                created=created,
                expires=expires,
            )
            for key, user_id, created in rows
        )
        cursor.execute(f"DELETE FROM {LEGACY_TABLE}")  # noqa: S608


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(import_tokens, migrations.RunPython.noop)]
