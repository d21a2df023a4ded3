"""Attack: get past the second factor without the code (docs/accounts.md#two-factor).

An attacker who has an enrolled researcher's password (not their phone) tries every page and
API route: after the login page (pending: no session is logged in), after the admin's own login
page (a session made by the password alone), and through the token exchange. Nothing but the
code page, logging out and the respondent paths answers; no token is issued. A token issued
before the account needed the code (before it was enrolled, or made staff) opens no API route
either (tests/accounts/test_token_second_factor.py has each way an account comes to need it).
"""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.services import api_token_create
from accounts.two_factor_gate import OPEN_ROUTES
from tests.accounts.support import PASSWORD
from tests.accounts.two_factor_support import code_of, enrol
from tests.security.support import walk_urlconf
from testsupport.factories import make_survey

pytestmark = pytest.mark.django_db
STAFF_PASSWORD = "root-secure-pw-2024"
# Pages anyone may see without an account: not the gate's business.
PUBLIC = {
    "login", "signup", "password_reset", "password_reset_done", "password_reset_confirm",
    "password_reset_complete", "api-schema", "api-docs", "api-auth-token", "oidc-authenticate",
    "oidc-callback",
}  # fmt: skip


def _urls(slug: str) -> list[tuple[str, str]]:
    fillers = {
        "slug": slug, "release_id": "00000000-0000-4000-8000-000000000000", "token_id": "1",
        "invitation_id": "1", "username": "nobody", "uidb64": "x", "token": "y", "webhook_id": "1",
        "session_id": "1",
    }  # fmt: skip
    out = []
    for route in walk_urlconf():
        if route.is_regex or not route.name or route.namespace or route.name in PUBLIC:
            continue
        out.append((route.name, route.url(fillers)))
    return out


def test_the_admin_login_leaves_every_route_behind_the_gate(admin):
    enrol(admin)
    survey = make_survey(admin)
    client = Client()
    r = client.post("/admin/login/", {"username": "root", "password": STAFF_PASSWORD})
    assert r.status_code == 302 and "_auth_user_id" in client.session  # a session, no code
    seen = 0
    for name, url in _urls(survey.slug):
        if name in OPEN_ROUTES:
            continue
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            if url.startswith("/api/"):
                assert response.status_code == 401, (method, url, response.status_code)
                assert response.json()["error"] == "otp_required"
            else:
                assert response.status_code == 302, (method, url, response.status_code)
                assert response["Location"].startswith("/accounts/two-factor/verify/"), url
            seen += 1
    assert seen > 80  # every route, not a handful
    admin_index = client.get("/admin/")
    assert admin_index.status_code == 302
    assert admin_index["Location"].startswith("/accounts/two-factor/verify/")


def test_the_login_page_logs_nobody_in_before_the_code(carol):
    device, _ = enrol(carol)
    survey = make_survey(carol)
    client = Client()
    client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    for name, url in _urls(survey.slug):
        if name in OPEN_ROUTES:
            continue
        response = client.get(url)
        assert response.status_code in (302, 401, 403, 404, 405), (url, response.status_code)
        if response.status_code == 302:
            assert response["Location"].startswith(("/accounts/login/", "/admin/login/")), url
    assert survey.title not in client.get(f"/surveys/{survey.slug}/").content.decode()
    # The code page completes it, and only it.
    client.post("/accounts/two-factor/verify/", {"code": code_of(device)})
    assert client.get(f"/surveys/{survey.slug}/").status_code == 200


def test_the_token_exchange_issues_nothing_without_the_code(carol):
    enrol(carol)
    for body in (
        {"username": "carol", "password": PASSWORD},
        {"username": "carol", "password": PASSWORD, "otp": ""},
        {"username": "carol", "password": PASSWORD, "otp": "000000"},
        {"username": "carol", "password": PASSWORD, "otp": " "},
    ):
        r = Client().post("/api/v1/auth/token/", body, content_type="application/json")
        assert r.status_code == 401 and "token" not in r.json()
    assert not ApiToken.objects.exists()


def test_a_token_from_before_the_second_factor_opens_no_api_route(carol):
    key = api_token_create(user=carol, name="before").key
    survey = make_survey(carol)
    enrol(carol)
    client = Client(HTTP_AUTHORIZATION=f"Token {key}")
    seen = 0
    for name, url in _urls(survey.slug):
        if name in OPEN_ROUTES or not url.startswith("/api/"):
            continue
        for method in ("get", "post", "patch", "delete"):
            response = getattr(client, method)(url, content_type="application/json")
            assert response.status_code == 401, (method, url, response.status_code)
            assert response.json()["error"] == "otp_required", (method, url)
            seen += 1
    assert seen > 100  # every API route, not a handful
    assert ApiToken.objects.filter(user=carol).count() == 1  # and none issued through it
