"""API v1 (docs/api.md): the token endpoint and the researcher endpoints that need it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.surveys.api.support import API, url

pytestmark = pytest.mark.django_db


def test_token_endpoint(alice):
    client = APIClient()
    r = client.post(
        f"{API}/auth/token/", {"username": "alice", "password": "alice-pw-123"}, format="json"
    )
    assert r.status_code == 200
    token = r.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get(f"{API}/surveys/").status_code == 200
    creds = {"username": "alice", "password": "alice-pw-123"}
    again = APIClient().post(f"{API}/auth/token/", creds, format="json")
    assert again.json()["token"] == token

    bad = APIClient().post(
        f"{API}/auth/token/", {"username": "alice", "password": "wrong"}, format="json"
    )
    assert bad.status_code == 400 and "non_field_errors" in bad.json()["errors"]
    missing = APIClient().post(f"{API}/auth/token/", {"username": "alice"}, format="json")
    assert missing.status_code == 400 and "password" in missing.json()["errors"]


def test_researcher_endpoints_need_auth(survey):
    anon = APIClient()
    for method, path in [
        ("get", f"{API}/surveys/"),
        ("post", f"{API}/surveys/"),
        ("get", url(survey)),
        ("get", url(survey, "estimates/")),
        ("get", url(survey, "responses/export/")),
        ("get", url(survey, "responses/export/metadata/")),
        ("get", url(survey, "invitations/")),
        ("post", url(survey, "invitations/")),
        ("post", url(survey, "invitations/revoke/")),
        ("post", f"{API}/designs/preview/"),
    ]:
        r = getattr(anon, method)(path, {}, format="json") if method == "post" else anon.get(path)
        assert r.status_code in (401, 403), (path, r.status_code)
