"""The sessions page (accounts.session_views; docs/accounts.md#sessions): sessions listed with the
current one marked, signing out one, the others or everywhere (a signed-out session cannot be
used again, by its cookie or by the API), API tokens revoked on request, and session fixation."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client

from accounts.models import ApiToken, ResearcherSession
from accounts.services import api_token_create
from tests.accounts.support import PASSWORD

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
CHROME_MAC = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0 Safari/537.36"
)


def _login(user_agent: str = FIREFOX) -> Client:
    client = Client(HTTP_USER_AGENT=user_agent)
    response = client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert response.status_code == 302, response.content
    return client


def test_the_page_lists_each_browser_and_marks_this_one(carol):
    here = _login(FIREFOX)
    _login(CHROME_MAC)
    page = here.get("/accounts/sessions/").content.decode()
    assert "Firefox on Linux" in page and "Chrome on macOS" in page
    current = re.findall(r'<tr class="current" aria-current="true" data-session="(\d+)">', page)
    assert len(current) == 1
    assert ResearcherSession.objects.get(pk=current[0]).device == "Firefox on Linux"
    # Only the summary is stored: no user agent string, no address.
    stored = list(ResearcherSession.objects.values_list("device", flat=True))
    assert all(FIREFOX not in d and "127.0.0.1" not in d for d in stored)


def test_sign_out_of_the_others_keeps_this_one(carol):
    here, other = _login(), _login(CHROME_MAC)
    response = here.post("/accounts/sessions/", {"action": "others"})
    assert response.status_code == 302
    assert here.get("/accounts/").status_code == 200
    assert other.get("/accounts/").status_code == 302  # to the login page
    assert SESSION_KEY not in other.session
    assert ResearcherSession.objects.filter(user=carol).count() == 1


def test_a_session_signed_out_everywhere_cannot_be_reused(carol):
    """The attack: a stolen cookie copied before "sign out everywhere" is replayed after it."""
    here, thief = _login(), _login(CHROME_MAC)
    stolen = thief.cookies["sessionid"].value
    api_token_create(user=carol, name="laptop")
    response = here.post("/accounts/sessions/", {"action": "everywhere", "revoke_tokens": "on"})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    replay = Client()
    replay.cookies["sessionid"] = stolen
    assert replay.get("/accounts/").status_code == 302
    assert replay.get("/api/v1/surveys/").status_code in (401, 403)
    assert here.get("/accounts/").status_code == 302
    assert not ApiToken.objects.filter(user=carol).exists()
    assert not ResearcherSession.objects.filter(user=carol).exists()


def test_tokens_stay_unless_asked(carol):
    here = _login()
    api_token_create(user=carol, name="laptop")
    here.post("/accounts/sessions/", {"action": "everywhere"})
    assert ApiToken.objects.filter(user=carol).count() == 1


def test_one_session_signed_out_and_someone_elses_is_a_404(carol, admin):
    here, other = _login(), _login(CHROME_MAC)
    other_id = ResearcherSession.objects.filter(user=carol, device="Chrome on macOS").get().pk
    root = Client()
    root.force_login(admin)
    assert root.post(f"/accounts/sessions/{other_id}/revoke/").status_code == 404
    assert other.get("/accounts/").status_code == 200
    assert here.post(f"/accounts/sessions/{other_id}/revoke/").status_code == 302
    assert other.get("/accounts/").status_code == 302


def test_session_fixation_a_planted_session_key_is_not_logged_in(carol):
    """The attack: an attacker plants a session cookie in the victim's browser before the
    victim logs in, then uses the same cookie. Login gives the victim a new key."""
    attacker = Client()
    attacker.get("/accounts/login/")
    attacker.session.save()
    planted = attacker.session.session_key
    victim = Client()
    victim.cookies["sessionid"] = planted
    victim.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert victim.cookies["sessionid"].value != planted
    attacker.cookies["sessionid"] = planted
    assert attacker.get("/accounts/").status_code == 302


def test_changing_the_password_ends_and_unlists_the_other_sessions(carol):
    here, other = _login(), _login(CHROME_MAC)
    new = "carol-new-secure-pw-2025"
    response = here.post(
        "/accounts/password/change/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert here.get("/accounts/").status_code == 200
    assert other.get("/accounts/").status_code == 302
    assert ResearcherSession.objects.filter(user=carol).count() == 1
