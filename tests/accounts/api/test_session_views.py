"""The sessions API (accounts.api.session_views; docs/api.md#sessions): a researcher lists their
signed-in sessions, ends one, the others or all of them (optionally with their API tokens), by
token or by session, through the same services as the sessions page.

Attacks: someone else's session id (a 404 like a missing one: no existence oracle), a cookie
replayed after its session was ended, a token used after "also revoke my API tokens", a forged
cross-site request (CSRF), a session made by the password alone of an account with two-factor
login on, no credentials, and bad input (each a 400 naming the field; nothing ends)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiToken, ResearcherSession
from accounts.services import api_token_create
from tests.accounts.support import PASSWORD
from tests.accounts.two_factor_support import code_of, enrol

pytestmark = pytest.mark.django_db

SESSIONS = "/api/v1/auth/sessions/"
SIGN_OUT = "/api/v1/auth/sessions/sign-out/"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
CHROME_MAC = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0 Safari/537.36"
)
FIELDS = {"id", "browser", "via", "created", "last_seen", "current"}


def _login(user_agent: str = FIREFOX, username: str = "carol", password: str = PASSWORD) -> Client:
    client = Client(HTTP_USER_AGENT=user_agent)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, response.content
    return client


def _token(user: Any, name: str = "script") -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user, name=name).key}")


def _row(user: Any, device: str) -> ResearcherSession:
    return ResearcherSession.objects.get(user=user, device=device)


def _sign_out(client: Client, body: Any) -> Any:
    return client.post(SIGN_OUT, json.dumps(body), content_type="application/json")


def _refused(client: Client) -> bool:
    """The session of ``client`` opens nothing: the pages send it to the login page and the API
    answers 401/403."""
    page = client.get("/accounts/")
    api = client.get(SESSIONS)
    return (
        page.status_code == 302
        and page["Location"].startswith("/accounts/login/")
        and api.status_code in (401, 403)
    )


# --- listing ------------------------------------------------------------------------------------


def test_the_list_marks_this_session_and_never_shows_a_key_or_digest(carol):
    here = _login(FIREFOX)
    other = _login(CHROME_MAC)
    response = here.get(SESSIONS)
    assert response.status_code == 200
    listed = response.json()
    assert [set(s) for s in listed] == [FIELDS, FIELDS]
    by_browser = {s["browser"]: s for s in listed}
    assert by_browser["Firefox on Linux"]["current"] is True
    assert by_browser["Chrome on macOS"]["current"] is False
    assert {s["via"] for s in listed} == {"password"}
    assert by_browser["Firefox on Linux"]["id"] == _row(carol, "Firefox on Linux").pk
    body = response.content.decode()
    for client in (here, other):
        assert client.cookies["sessionid"].value not in body
        marker = client.session["_deniable_session"]
        assert marker not in body
    for row in ResearcherSession.objects.filter(user=carol):
        assert row.digest not in body


def test_a_token_lists_the_sessions_with_none_current(carol):
    _login(FIREFOX)
    _login(CHROME_MAC)
    listed = _token(carol).get(SESSIONS).json()
    assert len(listed) == 2 and not any(s["current"] for s in listed)


def test_the_list_shows_only_ones_own_sessions(carol, admin):
    _login(CHROME_MAC)
    root = _token(admin)
    assert root.get(SESSIONS).json() == []


# --- ending one session -------------------------------------------------------------------------


def test_someone_elses_session_is_a_404_like_a_missing_one(carol, admin):
    """No existence oracle: another user's session id and an id nobody has answer alike, by
    token and by session, and the session goes on."""
    victim = _login(CHROME_MAC)
    victim_id = _row(carol, "Chrome on macOS").pk
    missing = victim_id + 10_000
    by_session = Client()
    by_session.force_login(admin)
    for attacker in (_token(admin), by_session):
        theirs = attacker.delete(f"{SESSIONS}{victim_id}/")
        nobodys = attacker.delete(f"{SESSIONS}{missing}/")
        assert theirs.status_code == nobodys.status_code == 404
        assert theirs.json() == nobodys.json()
        assert theirs.json()["error"] == "not_found"
    assert ResearcherSession.objects.filter(pk=victim_id).exists()
    assert victim.get("/accounts/").status_code == 200


def test_a_session_ended_by_the_api_cannot_be_replayed(carol):
    """The attack: a cookie copied from the other browser is replayed after the researcher ends
    that session from a script."""
    thief = _login(CHROME_MAC)
    stolen = thief.cookies["sessionid"].value
    here = _login(FIREFOX)
    target = _row(carol, "Chrome on macOS").pk
    assert _token(carol).delete(f"{SESSIONS}{target}/").status_code == 204
    replay = Client()
    replay.cookies["sessionid"] = stolen
    assert _refused(replay)
    assert _refused(thief)
    assert here.get("/accounts/").status_code == 200  # the others go on
    assert _token(carol, "again").delete(f"{SESSIONS}{target}/").status_code == 404


def test_ending_this_session_by_the_api_signs_it_out(carol):
    here = _login(FIREFOX)
    mine = _row(carol, "Firefox on Linux").pk
    assert here.delete(f"{SESSIONS}{mine}/").status_code == 204
    assert _refused(here)
    assert not ResearcherSession.objects.filter(user=carol).exists()


# --- signing out of the others / everywhere -----------------------------------------------------


def test_sign_out_of_the_others_keeps_this_session(carol):
    here, other = _login(FIREFOX), _login(CHROME_MAC)
    api_token_create(user=carol, name="laptop")
    response = _sign_out(here, {"scope": "others"})
    assert response.status_code == 200
    assert response.json() == {"sessions_ended": 1, "tokens_revoked": 0, "current_ended": False}
    assert _refused(other)
    assert here.get("/accounts/").status_code == 200
    assert ApiToken.objects.filter(user=carol).count() == 1  # tokens stay unless asked


def test_sign_out_everywhere_by_session_ends_this_one_too(carol):
    here, other = _login(FIREFOX), _login(CHROME_MAC)
    response = _sign_out(here, {"scope": "everywhere"})
    assert response.json() == {"sessions_ended": 2, "tokens_revoked": 0, "current_ended": True}
    assert _refused(here) and _refused(other)
    assert not ResearcherSession.objects.filter(user=carol).exists()


def test_also_revoking_the_tokens_stops_every_token_at_once(carol):
    """The attack: a token leaked with the password keeps working after "sign out everywhere"
    unless the researcher also revokes the tokens; with it ticked, no token works."""
    browser = _login(CHROME_MAC)
    script = _token(carol, "script")
    leaked = _token(carol, "leaked")
    assert leaked.get("/api/v1/surveys/").status_code == 200
    response = _sign_out(script, {"scope": "everywhere", "revoke_tokens": True})
    assert response.status_code == 200
    assert response.json() == {"sessions_ended": 1, "tokens_revoked": 2, "current_ended": False}
    for client in (leaked, script):
        refused = client.get("/api/v1/surveys/")
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_token"
    assert _refused(browser)
    assert not ApiToken.objects.filter(user=carol).exists()


def test_a_token_signing_out_of_the_others_ends_every_session(carol):
    """A token request has no session of its own: every session is one of the others."""
    browser = _login(FIREFOX)
    response = _sign_out(_token(carol), {"scope": "others"})
    assert response.json()["sessions_ended"] == 1
    assert _refused(browser)


def test_a_session_cookie_beside_a_token_is_not_the_tokens_session(carol, admin):
    """A token request that also carries someone's cookie: "everywhere" ends the token owner's
    sessions, never the cookie's (which may be another account's)."""
    root_browser = Client()
    root_browser.force_login(admin)
    carol_browser = _login(FIREFOX)
    key = api_token_create(user=carol, name="script").key
    response = root_browser.post(
        SIGN_OUT,
        json.dumps({"scope": "everywhere"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {key}",
    )
    assert response.json() == {"sessions_ended": 1, "tokens_revoked": 0, "current_ended": False}
    assert root_browser.get("/accounts/").status_code == 200
    assert _refused(carol_browser)


def test_the_page_and_the_api_end_the_same_sessions(carol):
    """One service behind both: the page's "others" and the API's leave the same rows."""
    here, _ = _login(FIREFOX), _login(CHROME_MAC)
    here.post("/accounts/sessions/", {"action": "others"})
    by_page = set(ResearcherSession.objects.filter(user=carol).values_list("device", flat=True))
    _login(CHROME_MAC)
    _sign_out(here, {"scope": "others"})
    by_api = set(ResearcherSession.objects.filter(user=carol).values_list("device", flat=True))
    assert by_page == by_api == {"Firefox on Linux"}


# --- forged requests, missing credentials, the second factor ------------------------------------


def test_a_cross_site_request_cannot_sign_anyone_out(carol):
    """CSRF: a page elsewhere posting with the researcher's cookie is refused, and nothing ends."""
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(carol)
    _login(CHROME_MAC)
    api_token_create(user=carol, name="laptop")
    other = _row(carol, "Chrome on macOS").pk
    assert _sign_out(forged, {"scope": "everywhere", "revoke_tokens": True}).status_code == 403
    assert forged.delete(f"{SESSIONS}{other}/").status_code == 403
    assert ResearcherSession.objects.filter(user=carol).count() == 2
    assert ApiToken.objects.filter(user=carol).count() == 1
    # A control: the same request from the site's own page (with its CSRF token) is served.
    forged.get("/accounts/sessions/")
    csrf = forged.cookies["csrftoken"].value
    assert forged.delete(f"{SESSIONS}{other}/", HTTP_X_CSRFTOKEN=csrf).status_code == 204


def test_no_credentials_is_a_401_everywhere(carol):
    _login(CHROME_MAC)
    row = _row(carol, "Chrome on macOS").pk
    anonymous = Client()
    for response in (
        anonymous.get(SESSIONS),
        anonymous.delete(f"{SESSIONS}{row}/"),
        _sign_out(anonymous, {"scope": "everywhere"}),
    ):
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Token"
    assert ResearcherSession.objects.filter(pk=row).exists()


def test_a_password_only_session_of_an_enrolled_user_is_held_at_the_gate(carol):
    """A session logged in without the code (here the test client's ``force_login``, standing
    for any way in other than the login page, such as the admin's login) of a user with two-factor
    login on can neither list nor end sessions; after the code it can."""
    device, _ = enrol(carol)
    other = _login(CHROME_MAC)  # the login page: pending, nobody logged in
    client = Client()
    client.force_login(carol)
    rows = set(ResearcherSession.objects.filter(user=carol).values_list("pk", flat=True))
    assert len(rows) == 1
    for response in (
        client.get(SESSIONS),
        client.delete(f"{SESSIONS}{next(iter(rows))}/"),
        _sign_out(client, {"scope": "everywhere", "revoke_tokens": True}),
    ):
        assert response.status_code == 401
        assert response.json()["error"] == "otp_required"
    assert set(ResearcherSession.objects.filter(user=carol).values_list("pk", flat=True)) == rows
    # The code completes it (a control: the refusals above are the gate's).
    verified = client.post("/accounts/two-factor/verify/", {"code": code_of(device)})
    assert verified.status_code == 302
    assert client.get(SESSIONS).status_code == 200
    assert "_auth_user_id" not in other.session


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "session_id", ["abc", "1.5", "-3", "0", "1e3", "99999999999999999999999", "%20", "0x10"]
)
def test_a_session_id_that_is_not_a_positive_integer_is_a_400_naming_it(carol, session_id):
    _login(CHROME_MAC)
    response = _token(carol).delete(f"{SESSIONS}{session_id}/")
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["session_id"]
    assert ResearcherSession.objects.filter(user=carol).count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"scope": "all"}, "scope"),
        ({"scope": "EVERYWHERE"}, "scope"),
        ({"scope": ["everywhere"]}, "scope"),
        ({"scope": None}, "scope"),
        ({}, "scope"),
        ({"scope": "everywhere", "revoke_tokens": "yes"}, "revoke_tokens"),
        ({"scope": "everywhere", "revoke_tokens": 1}, "revoke_tokens"),
        ({"scope": "everywhere", "revoke_tokens": None}, "revoke_tokens"),
        (["everywhere"], "non_field_errors"),
        ("everywhere", "non_field_errors"),
    ],
)
def test_bad_sign_out_input_is_a_400_naming_the_field_and_ends_nothing(carol, body, field):
    here = _login(FIREFOX)
    _login(CHROME_MAC)
    api_token_create(user=carol, name="laptop")
    response = _sign_out(here, body)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"], response.json()
    assert ResearcherSession.objects.filter(user=carol).count() == 2
    assert ApiToken.objects.filter(user=carol).count() == 1
    assert here.get("/accounts/").status_code == 200


def test_a_body_that_is_not_json_is_a_400(carol):
    here = _login(FIREFOX)
    response = here.post(SIGN_OUT, "scope=everywhere", content_type="application/json")
    assert response.status_code == 400 and "non_field_errors" in response.json()["errors"]
    assert here.get("/accounts/").status_code == 200


def test_only_the_listed_methods_are_allowed(carol):
    client = _token(carol)
    assert client.post(SESSIONS).status_code == 405
    assert client.get(SIGN_OUT).status_code == 405
    assert client.get(f"{SESSIONS}1/").status_code == 405


# --- the schema ---------------------------------------------------------------------------------


def test_the_openapi_schema_documents_the_sessions_endpoints(carol):
    client = _token(carol)
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    listed = paths["/api/v1/auth/sessions/"]["get"]
    assert {"tokenAuth": []} in listed["security"]
    item = listed["responses"]["200"]["content"]["application/json"]["schema"]["items"]["$ref"]
    name = item.rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][name]["properties"]) == FIELDS
    detail = paths["/api/v1/auth/sessions/{session_id}/"]["delete"]
    assert {"204", "400", "401", "404"} <= set(detail["responses"])
    (param,) = detail["parameters"]
    assert param["name"] == "session_id" and param["schema"]["type"] == "integer"
    sign_out = paths["/api/v1/auth/sessions/sign-out/"]["post"]
    assert {"200", "400", "401", "403"} <= set(sign_out["responses"])
    body = sign_out["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert request["required"] == ["scope"]
    assert set(request["properties"]) == {"scope", "revoke_tokens"}
