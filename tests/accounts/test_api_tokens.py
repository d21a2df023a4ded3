"""API tokens (docs/api.md#authentication): create through POST /api/v1/auth/token/, list,
revoke; expired, revoked and unknown keys are a 401 JSON; only a digest is stored."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import keys
from accounts.models import ApiToken
from accounts.services import api_token_authenticate
from tests.accounts.support import PASSWORD

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
TOKENS = "/api/v1/auth/tokens/"
SURVEYS = "/api/v1/surveys/"


def _create(**extra: Any) -> Any:
    body = {"username": "carol", "password": PASSWORD, **extra}
    return APIClient().post(TOKEN, body, format="json")


def _as(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_create_returns_a_key_that_works_and_stores_only_its_digest(carol):
    response = _create()
    assert response.status_code == 200
    body = response.json()
    key = body["token"]
    assert key.startswith("dnb_") and len(key) > 40
    assert body["name"] == "API"
    expires = timezone.datetime.fromisoformat(body["expires"])
    assert abs(expires - (timezone.now() + timedelta(days=90))) < timedelta(minutes=1)
    assert _as(key).get(SURVEYS).status_code == 200
    stored = ApiToken.objects.get(pk=body["id"])
    assert stored.digest == keys.digest(key) and key not in str(stored.__dict__)


def test_each_call_issues_another_named_token_with_its_own_expiry(carol):
    first = _create().json()
    second = _create(name="notebook", expires_in_days=7).json()
    assert first["token"] != second["token"]
    assert second["name"] == "notebook"
    expires = timezone.datetime.fromisoformat(second["expires"])
    assert abs(expires - (timezone.now() + timedelta(days=7))) < timedelta(minutes=1)
    # Both keep working: a new token does not replace the old one.
    assert _as(first["token"]).get(SURVEYS).status_code == 200
    assert _as(second["token"]).get(SURVEYS).status_code == 200


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"expires_in_days": 0}, "expires_in_days"),
        ({"expires_in_days": 366}, "expires_in_days"),
        ({"expires_in_days": "30"}, "expires_in_days"),
        ({"expires_in_days": 2.5}, "expires_in_days"),
        ({"name": 5}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "nul\x00"}, "name"),
    ],
)
def test_bad_optional_fields_are_400s_naming_the_field(carol, extra, field):
    response = _create(**extra)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]
    assert ApiToken.objects.count() == 0


def test_missing_and_wrong_credentials(carol):
    missing = APIClient().post(TOKEN, {"username": "carol"}, format="json")
    assert missing.status_code == 400 and "password" in missing.json()["errors"]
    wrong = APIClient().post(TOKEN, {"username": "carol", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and "non_field_errors" in wrong.json()["errors"]
    assert ApiToken.objects.count() == 0


@override_settings(DENIABLE_API_TOKEN_MAX_DAYS=30)
def test_the_longest_lifetime_is_a_setting(carol):
    assert _create(expires_in_days=31).status_code == 400
    assert _create(expires_in_days=30).status_code == 200


@override_settings(DENIABLE_API_TOKENS_PER_USER=2)
def test_unexpired_tokens_per_user_are_capped(carol):
    assert _create().status_code == 200
    assert _create().status_code == 200
    third = _create()
    assert third.status_code == 409 and third.json()["error"] == "too_many_tokens"
    # An expired one does not count.
    ApiToken.objects.filter(pk=ApiToken.objects.first().pk).update(expires=timezone.now())
    assert _create().status_code == 200


def test_list_shows_names_dates_and_never_a_key(carol, bob_token):
    created = _create(name="laptop").json()
    other = _create(name="server").json()
    client = _as(created["token"])
    response = client.get(TOKENS)
    assert response.status_code == 200
    rows = response.json()
    assert [r["name"] for r in rows] == ["server", "laptop"]
    assert set(rows[0]) == {
        "id",
        "name",
        "created",
        "expires",
        "last_used",
        "expired",
        "current",
        "second_factor",
    }
    assert [r["current"] for r in rows] == [False, True]
    # Carol has no second factor: neither token was issued past one (tests/accounts/
    # test_token_second_factor.py has tokens that were).
    assert [r["second_factor"] for r in rows] == [False, False]
    assert rows[1]["last_used"] == timezone.localdate().isoformat()
    assert rows[0]["last_used"] is None
    text = response.content.decode()
    assert created["token"] not in text and other["token"] not in text
    assert keys.digest(created["token"]) not in text
    # Bob's token is not in Carol's list.
    assert bob_token.name not in [r["name"] for r in rows]


def test_revoke_stops_the_token_at_once_with_a_401(carol):
    keep = _create(name="keep").json()
    drop = _create(name="drop").json()
    client = _as(keep["token"])
    assert client.delete(f"{TOKENS}{drop['id']}/").status_code == 204
    refused = _as(drop["token"]).get(SURVEYS)
    assert refused.status_code == 401
    assert refused.json() == {
        "error": "invalid_token",
        "detail": "Invalid token (unknown or revoked).",
    }
    assert refused["WWW-Authenticate"] == "Token"
    assert client.delete(f"{TOKENS}{drop['id']}/").status_code == 404  # already gone
    # A token may revoke itself.
    assert client.delete(f"{TOKENS}{keep['id']}/").status_code == 204
    assert client.get(TOKENS).status_code == 401


def test_someone_elses_token_is_a_404_and_survives(carol, bob_token):
    mine = _create().json()
    response = _as(mine["token"]).delete(f"{TOKENS}{bob_token.pk}/")
    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=bob_token.pk).exists()


def test_an_expired_token_is_a_401_saying_so(carol):
    created = _create().json()
    ApiToken.objects.filter(pk=created["id"]).update(expires=timezone.now() - timedelta(seconds=1))
    response = _as(created["token"]).get(SURVEYS)
    assert response.status_code == 401
    body = response.json()
    assert body["error"] == "token_expired" and "expired on" in body["detail"]
    # It is still listed (as expired) for a session, so the researcher sees why.
    client = APIClient()
    client.force_login(carol)
    rows = client.get(TOKENS).json()
    assert rows[0]["expired"] is True


def test_unknown_and_malformed_headers_are_401s(carol):
    for header in ("Token nope", "Token", "Token a b", "Token " + "x" * 300):
        response = APIClient().get(SURVEYS, HTTP_AUTHORIZATION=header)
        assert response.status_code == 401, header
        assert response.json()["error"] == "invalid_token"


def test_a_disabled_account_cannot_use_its_tokens(carol):
    created = _create().json()
    carol.is_active = False
    carol.save()
    response = _as(created["token"]).get(SURVEYS)
    assert response.status_code == 401 and response.json()["error"] == "account_disabled"


def test_last_used_is_a_date_written_once_a_day(carol, django_assert_num_queries):
    created = _create().json()
    token = api_token_authenticate(key=created["token"], today=date(2030, 1, 2))
    assert token.last_used == date(2030, 1, 2)
    with django_assert_num_queries(1):  # the lookup only: no second write that day
        api_token_authenticate(key=created["token"], today=date(2030, 1, 2))
    stored = ApiToken.objects.get(pk=created["id"])
    assert stored.last_used == date(2030, 1, 2)


def test_token_endpoints_need_authentication():
    assert APIClient().get(TOKENS).status_code == 401
    assert APIClient().delete(f"{TOKENS}1/").status_code == 401


def test_the_openapi_schema_documents_the_token_scheme_and_endpoints(carol):
    client = APIClient()
    client.force_login(carol)
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    scheme = schema["components"]["securitySchemes"]["tokenAuth"]
    assert scheme == {**scheme, "type": "apiKey", "in": "header", "name": "Authorization"}
    assert "/api/v1/auth/tokens/" in schema["paths"]
    assert "delete" in schema["paths"]["/api/v1/auth/tokens/{token_id}/"]
    created = schema["paths"]["/api/v1/auth/token/"]["post"]
    assert {"token", "expires"} <= set(
        schema["components"]["schemas"]["TokenCreated"]["properties"]
    )
    assert "409" in created["responses"]
    assert {"tokenAuth": []} in schema["paths"]["/api/v1/auth/tokens/"]["get"]["security"]


def test_the_accounts_api_schema_is_valid_without_warnings(tmp_path):
    from django.core.management import call_command

    target = tmp_path / "accounts.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(target),
        "--urlconf",
        "tests.accounts.schema_urls",
    )
    text = target.read_text()
    assert "tokenAuth" in text and "/api/v1/auth/tokens/{token_id}/" in text
    for path in ("/api/v1/auth/sessions/", "/api/v1/auth/sessions/{session_id}/"):
        assert path in text
