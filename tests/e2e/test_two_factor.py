"""Two-factor login in Chromium (docs/accounts.md#two-factor): set up by the QR code's key and
a typed code, log in with a code from the app, log in with a recovery code, turn it off and log
in with the password alone."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django_otp.oath import totp

from tests.e2e.axe import axe_violations, format_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "otp-secure-pw-2024"


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    cache.clear()


def _code(secret: str, *, ahead: int = 0) -> str:
    """What the authenticator app shows (``ahead`` steps of 30 s later: django-otp accepts one
    step of drift and never the same step twice)."""
    return f"{totp(base64.b32decode(secret), drift=ahead):06d}"


def _next_code(secret: str, username: str) -> str:
    """The next code the server will take: a step after the last one used, inside its window.

    django-otp remembers the device's drift: a set-up code typed just before a 30 s boundary and
    checked just after it sets the drift to −1, and "the next step" computed from the clock alone
    (``ahead=1``) then lies two steps ahead of the window — refused (a CI failure, 1 run in ~30)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.get(user__username=username, confirmed=True)
    now = (int(time.time()) - device.t0) // device.step  # the clock's step, without drift
    step = max(device.last_t + 1, now + device.drift)
    assert step <= now + device.drift + device.tolerance  # within the window the server checks
    return _code(secret, ahead=step - now)


def _password(page: Any, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "tess")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()


def _log_out(page: Any) -> None:
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/**")


def _no_serious_axe(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert not found, format_violations(found, where=where)


def test_set_up_log_in_with_a_code_and_a_recovery_code_then_turn_it_off(live_server, new_page):
    get_user_model().objects.create_user("tess", password=PASSWORD)
    base = live_server.url
    page, problems = new_page(viewport={"width": 360, "height": 740})
    _password(page, base)
    page.wait_for_url("**/surveys/")

    page.goto(f"{base}/accounts/")
    page.get_by_role("link", name="Two-factor login").click()
    page.wait_for_url("**/accounts/two-factor/")
    assert page.locator("#totp-qr svg").count() == 1
    _no_serious_axe(page, "two-factor set-up, 360 px")
    secret = page.locator("#totp-secret").inner_text().strip()
    page.get_by_role("textbox", name="Code").fill("000000")
    page.get_by_role("button", name="Turn on two-factor login").click()
    page.get_by_text("That code does not match").wait_for()
    page.get_by_role("textbox", name="Code").fill(_code(secret))
    page.get_by_role("button", name="Turn on two-factor login").click()
    codes = page.locator("#recovery-codes code").all_inner_texts()
    assert len(codes) == 10
    _log_out(page)

    # The password leads to the code page; a code from the app completes the login.
    _password(page, base)
    page.wait_for_url("**/accounts/two-factor/verify/**")
    _no_serious_axe(page, "two-factor code page, 360 px")
    page.goto(f"{base}/surveys/")  # not logged in yet
    page.wait_for_url("**/accounts/login/**")
    _password(page, base)
    page.get_by_role("textbox", name="Code").fill(_next_code(secret, "tess"))
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/surveys/")
    _log_out(page)

    # A recovery code works once.
    _password(page, base)
    page.get_by_role("textbox", name="Code").fill(codes[0])
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/surveys/")
    _log_out(page)
    _password(page, base)
    page.get_by_role("textbox", name="Code").fill(codes[0])
    page.get_by_role("button", name="Continue").click()
    page.get_by_text("That code is not valid").wait_for()
    page.get_by_role("textbox", name="Code").fill(codes[1])
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/surveys/")

    # Off again: the password alone logs in.
    page.goto(f"{base}/accounts/two-factor/")
    assert "8 unused recovery codes" in page.locator("#two-factor-status").inner_text()
    page.get_by_role("button", name="Turn two-factor login off").click()
    page.get_by_text("Two-factor login is off.").wait_for()
    _log_out(page)
    _password(page, base)
    page.wait_for_url("**/surveys/")
    # The two wrong codes are answered 400 (the form again, with its error); nothing else.
    unexpected = [m for m in problems.messages if "status of 400" not in m]
    assert not unexpected and len(problems.messages) == 2, problems.messages
