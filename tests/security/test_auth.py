"""Researcher login: lockout (django-axes) on the login page and the API token endpoint, session
rotation at login, idle timeout and absolute lifetime, password rules. Respondents never reach
axes."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendRequestParameterRequired
from axes.handlers.proxy import AxesProxyHandler
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from deniable.security import SESSION_AUTH_STARTED_KEY
from surveys.management.commands import seed_demo
from tests.security.support import PASSWORD_A, PASSWORD_B, World, physical_post
from testsupport.factories import invitations_create

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
TOKEN = "/api/v1/auth/token/"


def _page_login(client: Client, password: str, username: str = "alice"):
    return client.post(LOGIN, {"username": username, "password": password})


def _api_login(client: Client, password: str, username: str = "alice"):
    return client.post(
        TOKEN, {"username": username, "password": password}, content_type="application/json"
    )


def test_settings_are_as_documented():
    assert settings.AXES_ENABLED is True
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username"]
    # Axes before every backend that checks a password; the single sign-on backend, before it,
    # answers only its own callback (tests/accounts/test_oidc.py, a password login with
    # code and state in its URL) and checks no password.
    assert settings.AUTHENTICATION_BACKENDS == [
        "accounts.oidc.DeniableOIDCBackend",
        "axes.backends.AxesStandaloneBackend",
        "django.contrib.auth.backends.ModelBackend",
    ]
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"
    assert settings.SESSION_COOKIE_AGE == 30 * 60 and settings.SESSION_SAVE_EVERY_REQUEST


def test_login_page_locks_the_username_after_five_failures(world):
    client = Client()
    for _ in range(4):
        response = _page_login(client, "wrong-password")
        assert response.status_code == 200  # the form again, with its error
        assert b"Please enter a correct username" in response.content
    locked = _page_login(client, "wrong-password")
    assert locked.status_code == 429
    assert b"Login temporarily locked" in locked.content and b"15 minutes" in locked.content
    assert locked["Retry-After"] == "900"
    # Even the right password is refused now, from any client…
    assert _page_login(Client(), PASSWORD_A).status_code == 429
    assert _api_login(Client(), PASSWORD_A).status_code == 429
    # …but only for that username.
    assert _page_login(client, PASSWORD_B, username="bob").status_code == 302
    # Fifteen minutes later (the attempt record is aged instead of the clock), it works again.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert _page_login(Client(), PASSWORD_A).status_code == 302


def test_api_token_endpoint_is_locked_out_with_json(world):
    client = Client()
    for _ in range(4):
        response = _api_login(client, "wrong-password")
        assert response.status_code == 400
    locked = _api_login(client, "wrong-password")
    assert locked.status_code == 429
    assert locked.json()["error"] == "locked_out" and "15 minutes" in locked.json()["detail"]
    assert _api_login(client, PASSWORD_A).status_code == 429
    assert "token" not in _api_login(client, PASSWORD_A).json()


def test_page_and_api_share_one_counter(world):
    client = Client()
    for _ in range(3):
        _page_login(client, "wrong-password")
    assert _api_login(client, "wrong-password").status_code == 400
    assert _api_login(client, "wrong-password").status_code == 429
    assert _page_login(client, PASSWORD_A).status_code == 429


def test_a_successful_login_resets_the_counter(world):
    client = Client()
    for _ in range(4):
        _page_login(client, "wrong-password")
    ok = _api_login(client, PASSWORD_A)
    assert ok.status_code == 200 and "sessionid" not in ok.cookies  # a token, not a session
    for _ in range(4):
        assert _api_login(client, "wrong-password").status_code == 400
    assert _api_login(client, PASSWORD_A).status_code == 200


def test_axes_stores_no_successful_logins_and_logs_no_address(world, caplog):
    caplog.set_level("DEBUG")
    client = Client(REMOTE_ADDR="198.51.100.23", HTTP_USER_AGENT="UA-researcher-canary")
    _page_login(client, "wrong-password")
    _page_login(client, PASSWORD_A)
    assert AccessLog.objects.count() == 0  # AXES_DISABLE_ACCESS_LOG
    assert "198.51.100.23" not in caplog.text and "UA-researcher-canary" not in caplog.text
    assert 'username: "alice"' in caplog.text  # axes did log, just without the address


def test_authenticate_without_a_request_is_refused():
    """Why the tests use ``force_login``: axes needs the request to count a failure."""
    with pytest.raises(AxesBackendRequestParameterRequired):
        authenticate(username="alice", password=PASSWORD_A)


def test_respondent_endpoints_never_touch_axes(world, monkeypatch):
    calls: list[str] = []
    for name in (
        "is_allowed",
        "is_locked",
        "user_login_failed",
        "user_logged_in",
        "update_request",
    ):
        original = getattr(AxesProxyHandler, name)

        def spy(*args, _name=name, _original=original, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(AxesProxyHandler, name, spy)
    original_auth = AxesStandaloneBackend.authenticate

    def auth_spy(self, *args, **kwargs):
        calls.append("authenticate")
        return original_auth(self, *args, **kwargs)

    monkeypatch.setattr(AxesStandaloneBackend, "authenticate", auth_spy)

    token = invitations_create(survey=world.invite, count=1)[0]
    client = Client(REMOTE_ADDR="203.0.113.77", HTTP_USER_AGENT="UA-canary-respondent")
    responses = [
        client.get(reverse("respond", args=[world.survey.slug])),
        client.post(reverse("respond-submit", args=[world.survey.slug]), physical_post()),
        client.get(reverse("respond-thanks", args=[world.survey.slug])),
        client.get(reverse("respond", args=[world.invite.slug]) + "?token=nope"),
    ]
    for tok in ("wrong-token", token, token):  # bad, good, reused
        responses.append(
            client.post(
                f"/api/v1/surveys/{world.invite.slug}/responses/",
                {
                    "submission_id": str(uuid.uuid4()),
                    "randomizer": "browser",
                    "token": tok,
                    "answers": {"cheated": True, "region": "North", "hours": 3},
                },
                content_type="application/json",
            )
        )
    assert [r.status_code for r in responses][:4] == [200, 302, 200, 200]
    assert calls == []
    assert AccessAttempt.objects.count() == AccessFailureLog.objects.count() == 0
    # Sanity: the spies do see a researcher login.
    _page_login(Client(), PASSWORD_A)
    assert "authenticate" in calls


# --- sessions ------------------------------------------------------------------------------------


def test_session_key_rotates_at_login_and_dies_at_logout(world):
    client = Client()
    session = client.session  # an anonymous session, as an attacker could plant (fixation)
    session["planted"] = True
    session.save()
    before = client.cookies["sessionid"].value
    response = _page_login(client, PASSWORD_A)
    assert response.status_code == 302
    after = client.cookies["sessionid"].value
    assert after != before
    assert not Session.objects.filter(session_key=before).exists()
    assert client.get(reverse("researcher-home")).status_code == 200
    client.post(reverse("logout"))
    assert not Session.objects.filter(session_key=after).exists()


def _logged_in(world: World) -> tuple[Client, Session]:
    client = Client()
    assert _page_login(client, PASSWORD_A).status_code == 302
    return client, Session.objects.get(session_key=client.cookies["sessionid"].value)


def test_idle_timeout_is_thirty_minutes_and_slides(world):
    client, session = _logged_in(world)
    remaining = session.expire_date - timezone.now()
    assert timedelta(minutes=29) < remaining <= timedelta(minutes=30)
    # Active a minute before expiry: the window slides to a full 30 minutes again.
    Session.objects.filter(pk=session.pk).update(expire_date=timezone.now() + timedelta(minutes=1))
    assert client.get(reverse("researcher-home")).status_code == 200
    session.refresh_from_db()
    assert session.expire_date - timezone.now() > timedelta(minutes=29)
    # Idle past the window: logged out, pages send to the login page, the API refuses.
    Session.objects.filter(pk=session.pk).update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get(reverse("researcher-home"))
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)
    assert client.get("/api/v1/surveys/").status_code in (401, 403)


def test_absolute_lifetime_caps_an_active_session(world):
    client, _ = _logged_in(world)
    store = client.session
    assert time.time() - store[SESSION_AUTH_STARTED_KEY] < 60
    store[SESSION_AUTH_STARTED_KEY] = time.time() - settings.DENIABLE_SESSION_MAX_AGE_SECONDS - 1
    store.save()
    response = client.get(reverse("researcher-home"))
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)
    assert client.get("/api/v1/surveys/").status_code in (401, 403)
    # A fresh login starts a fresh clock (the stamp is set at login, after the key rotation).
    assert _page_login(client, PASSWORD_A).status_code == 302
    assert client.get(reverse("researcher-home")).status_code == 200


# --- passwords -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "password", ["short-pw-1", "123456789012345", "password1234", "alice-alice-alice"]
)
def test_weak_researcher_passwords_are_refused(password):
    user = get_user_model()(username="alice-alice-alice", email="alice@example.org")
    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_demo_and_test_passwords_comply():
    User = get_user_model()
    validate_password(seed_demo.DEMO_PASSWORD, User(username=seed_demo.DEMO_USERNAME))
    validate_password(PASSWORD_A, User(username="alice"))
