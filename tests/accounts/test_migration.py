"""Migration accounts.0002: DRF authtoken keys become expiring, digest-only tokens that keep
working, and the plain-text keys are deleted (docs/accounts.md#tokens-issued-before). Migration
0004: every existing token is recorded as issued past no second factor
(docs/accounts.md#tokens-and-the-second-factor)."""

from __future__ import annotations

import importlib
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import keys
from accounts.models import ApiToken
from tests.accounts.two_factor_support import enrol
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db

migration = importlib.import_module("accounts.migrations.0002_import_drf_tokens")
LEGACY_KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"  # DRF's format: 40 hex characters


def test_legacy_keys_are_imported_as_expiring_digests_and_deleted():
    user = make_user("legacy", "legacy-secure-pw-2024")
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created timestamp with time zone NOT NULL, user_id bigint NOT NULL)"
            if connection.vendor == "postgresql"
            else "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created datetime NOT NULL, user_id bigint NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [LEGACY_KEY, timezone.now() - timedelta(days=400), user.pk],
        )
    migration.import_tokens(apps, SimpleNamespace(connection=connection))

    token = ApiToken.objects.get(user=user)
    assert token.name == "imported" and LEGACY_KEY not in str(token.__dict__)
    left = token.expires - timezone.now()
    assert timedelta(days=89, hours=23) < left <= timedelta(days=90)
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM authtoken_token")
        assert cursor.fetchone()[0] == 0
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {LEGACY_KEY}")
    assert client.get("/api/v1/surveys/").status_code == 200


def test_a_database_without_the_legacy_table_is_left_alone():
    assert "authtoken_token" not in connection.introspection.table_names()
    migration.import_tokens(apps, SimpleNamespace(connection=connection))
    assert ApiToken.objects.count() == 0


BEFORE_0004 = [("accounts", "0003_sessions_devices_sso")]
AFTER_0004 = [("accounts", "0004_api_token_second_factor")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor


@pytest.mark.django_db(transaction=True)
def test_existing_tokens_are_recorded_as_past_no_second_factor():
    try:
        executor = _migrate(BEFORE_0004)
        old = executor.loader.project_state(BEFORE_0004).apps
        now = timezone.now()
        for username in ("plain", "enrolled"):
            user = old.get_model("auth", "User").objects.create(username=username)
            old.get_model("accounts", "ApiToken").objects.create(
                user=user,
                name="before",
                digest=keys.digest(f"key-of-{username}"),
                created=now,
                expires=now + timedelta(days=30),
            )
        _migrate(AFTER_0004)
        assert set(ApiToken.objects.values_list("second_factor", flat=True)) == {""}
        enrol(get_user_model().objects.get(username="enrolled"))
        for username, status in (("plain", 200), ("enrolled", 401)):
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token key-of-{username}")
            assert client.get("/api/v1/surveys/").status_code == status, username
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
