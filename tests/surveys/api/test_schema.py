"""API v1 (docs/api.md): the OpenAPI schema (valid, no warnings) and its endpoint."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.surveys.api.support import API

pytestmark = pytest.mark.django_db


def test_openapi_schema_is_valid_without_warnings(tmp_path):
    """The surveys API alone: valid OpenAPI 3 and not a single warning."""
    target = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(target),
        "--urlconf",
        "tests.surveys.schema_urls",
    )
    text = target.read_text()
    for path in (
        "/api/v1/surveys/{slug}/responses/",
        "/api/v1/surveys/{slug}/estimates/",
        "/api/v1/surveys/{slug}/responses/export/",
        "/api/v1/surveys/{slug}/responses/export/metadata/",
        "/api/v1/surveys/{slug}/invitations/revoke/",
        "/api/v1/designs/preview/",
        "/api/v1/surveys/{slug}/invitations/",
        "/api/v1/surveys/{slug}/webhooks/",
        "/api/v1/surveys/{slug}/webhooks/{webhook_id}/",
    ):
        assert path in text


def test_whole_project_schema_is_valid_without_warnings(tmp_path):
    """Every app's endpoints together: valid OpenAPI 3 and not a single warning (the release
    ``status``/``mechanism`` enums are named in ``SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]``)."""
    target = tmp_path / "all.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    text = target.read_text()
    for path in (
        "/api/v1/surveys/{slug}/releases/",
        "/api/v1/surveys/{slug}/releases/preview/",
        "/api/v1/surveys/{slug}/budget/",
        "/api/v1/releases/{release_id}/",
        "/api/v1/surveys/{slug}/estimates/",
        "/api/v1/auth/token/",
        "/api/v1/auth/tokens/",
        "/api/v1/auth/tokens/{token_id}/",
        "/api/v1/auth/sessions/",
        "/api/v1/auth/sessions/sign-out/",
        "/api/v1/auth/sessions/{session_id}/",
    ):
        assert path in text
    for enum in (
        "ReleaseStatusEnum:",
        "ReleaseMechanismEnum:",
        "SurveyStatusEnum:",
        "SignOutScopeEnum:",
    ):
        assert enum in text


def test_schema_endpoint(api):
    r = api.get(f"{API}/schema/")
    assert r.status_code == 200
