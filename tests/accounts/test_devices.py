"""New-device emails (docs/accounts.md#new-device): the first browser of an account is not
announced, a new one is (by Django's email backend), a known one (its device cookie) is not, and
the cookie holds a random value of which only a digest is stored."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client, override_settings

from accounts import keys
from accounts.devices import COOKIE, summary
from accounts.models import KnownDevice
from tests.accounts.support import PASSWORD

pytestmark = pytest.mark.django_db
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"


def _login(client: Client) -> None:
    response = client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert response.status_code == 302


@override_settings(EMAIL_BACKEND=LOCMEM)
def test_a_new_browser_is_emailed_and_a_known_one_is_not(carol):
    first = Client(HTTP_USER_AGENT="Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0")
    _login(first)
    assert mail.outbox == []  # the account's first browser
    cookie = first.cookies[COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert KnownDevice.objects.get(user=carol).digest == keys.digest(cookie.value)
    assert not KnownDevice.objects.filter(digest=cookie.value).exists()

    first.post("/accounts/logout/")
    _login(first)  # same browser, cookie kept
    assert mail.outbox == []

    _login(Client(HTTP_USER_AGENT="Mozilla/5.0 (Windows NT 10.0) Chrome/130.0 Safari/537.36"))
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["carol@example.org"]
    assert "Chrome on Windows" in message.body
    assert "http://testserver/accounts/sessions/" in message.body
    assert "127.0.0.1" not in message.body


@override_settings(EMAIL_BACKEND=LOCMEM)
def test_a_forged_cookie_is_a_new_browser(carol):
    _login(Client())
    stranger = Client()
    stranger.cookies[COOKIE] = "dnb_guessed"
    _login(stranger)
    assert len(mail.outbox) == 1


def test_no_email_backend_no_failure(carol):
    _login(Client())
    _login(Client())  # NotConfiguredBackend would raise: the sign-in still works
    assert KnownDevice.objects.filter(user=carol).count() == 2


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        (
            "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/130.0 Mobile",
            "Chrome on Android",
        ),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1", "Safari on iOS"),
        ("Mozilla/5.0 (Windows NT 10.0) Chrome/130.0 Safari/537.36 Edg/130.0", "Edge on Windows"),
        ("python-requests/2.32.3", "python-requests"),
        ("", "Unknown browser"),
    ],
)
def test_summary_is_coarse(agent, expected):
    assert summary(agent) == expected
