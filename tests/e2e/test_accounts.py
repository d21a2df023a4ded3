"""Account flows in Chromium (docs/accounts.md): a forgotten password reset by following the
emailed link, sign-up by an administrator's invitation, and API tokens created and revoked on
their page. The live server runs in this process, so Django's locmem outbox holds its email."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import Client

from accounts.models import ApiToken, SignupInvitation
from tests.e2e.axe import axe_violations, format_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "old-secure-pw-2024"
NEW_PASSWORD = "new-secure-pw-2024"
User = get_user_model()


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    cache.clear()  # the sign-up and reset counters


def _log_in(page: Any, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/surveys/")


def _no_serious_axe(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert not found, format_violations(found, where=where)
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], (where, widths)


def test_password_reset_by_following_the_emailed_link(live_server, new_page):
    User.objects.create_user("rosa", email="rosa@example.org", password=PASSWORD)
    page, problems = new_page(viewport={"width": 360, "height": 740})
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.wait_for_url("**/accounts/password/reset/")
    _no_serious_axe(page, "password reset, 360 px")
    page.get_by_label("Email").fill("rosa@example.org")
    page.get_by_role("button", name="Send the reset link").click()
    page.get_by_role("heading", name="Check your email").wait_for()

    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["rosa@example.org"]
    link = re.search(r"https?://\S+/accounts/password/reset/\S+/\S+/", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    page.goto(link.group(0))
    page.get_by_role("heading", name="Choose a new password").wait_for()
    assert "/set-password/" in page.url  # the token left the address bar
    _no_serious_axe(page, "new password, 360 px")
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("New password confirmation").fill("short")
    page.get_by_role("button", name="Set the new password").click()
    page.get_by_text("This password is too short").wait_for()
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set the new password").click()
    page.get_by_role("heading", name="Password changed").wait_for()
    page.get_by_role("link", name="Log in").click()
    page.fill("#id_username", "rosa")
    page.fill("#id_password", NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/surveys/")

    # The emailed link is dead now.
    page.goto(link.group(0))
    page.get_by_text("This reset link does not work").wait_for()
    assert problems.messages == []


def test_sign_up_by_an_administrators_invitation(live_server, new_page):
    User.objects.create_user("root", password=PASSWORD, is_staff=True)
    admin, admin_problems = new_page(viewport={"width": 1280, "height": 900})
    _log_in(admin, live_server.url, "root", PASSWORD)
    admin.get_by_role("link", name="Account").click()
    admin.get_by_role("link", name="Invite a researcher").click()
    admin.wait_for_url("**/accounts/invitations/")
    admin.get_by_label("Email", exact=True).fill("nina@example.org")
    admin.get_by_label("Days").fill("3")
    admin.get_by_role("button", name="Create the link").click()
    admin.get_by_text("Emailed to nina@example.org.").wait_for()
    link = admin.locator("#signup-link").get_attribute("href")
    assert link and "/accounts/signup/?invite=" in link
    assert len(mail.outbox) == 1 and link in mail.outbox[0].body
    _no_serious_axe(admin, "invitations, 1280 px")

    # The invitee, in a browser of their own, follows the emailed link.
    invitee, problems = new_page(viewport={"width": 360, "height": 740})
    invitee.goto(link)
    assert invitee.locator("#invited-email").inner_text() == "nina@example.org"
    _no_serious_axe(invitee, "sign-up, 360 px")
    invitee.get_by_label("Username").fill("nina")
    invitee.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    invitee.get_by_label("Password confirmation").fill(NEW_PASSWORD)
    invitee.get_by_role("button", name="Create my account").click()
    invitee.wait_for_url("**/surveys/")
    invitee.get_by_text("Welcome, nina: your researcher account is ready.").wait_for()
    nina = User.objects.get(username="nina")
    assert nina.email == "nina@example.org" and not nina.is_staff
    assert SignupInvitation.objects.get().used_by == nina

    # The link worked once.
    other, other_problems = new_page()
    other.goto(link)
    other.get_by_text("This invitation link has already been used.").wait_for()
    assert other.locator("form[action='/accounts/signup/']").count() == 0
    # The administrator's list says who used it.
    admin.reload()
    assert "used" in admin.locator("#invitation-table").inner_text()
    assert "by nina" in admin.locator("#invitation-table").inner_text()
    assert problems.messages == [] and admin_problems.messages == []
    # Chromium logs the 400 status of the refused link's page itself; nothing else.
    assert [m for m in other_problems.messages if "status of 400" not in m] == []


def test_token_page_creates_a_key_once_and_revokes_it(live_server, new_page):
    User.objects.create_user("tara", password=PASSWORD)
    page, problems = new_page(viewport={"width": 360, "height": 740})
    _log_in(page, live_server.url, "tara", PASSWORD)
    page.get_by_role("link", name="Account").click()
    page.get_by_role("link", name="Manage API tokens").click()
    page.wait_for_url("**/accounts/tokens/")
    assert page.locator("#no-tokens").is_visible()

    page.get_by_label("Name").fill("notebook")
    page.get_by_label("Expires in days").fill("400")
    page.get_by_role("button", name="Create token").click()
    page.get_by_text("Ensure this value is less than or equal to 365.").wait_for()
    assert ApiToken.objects.count() == 0
    page.get_by_label("Expires in days").fill("30")
    page.get_by_role("button", name="Create token").click()
    key = page.locator("#new-token").inner_text().strip()
    assert key.startswith("dnb_")
    row = page.locator("#token-table tbody tr")
    assert row.count() == 1 and "notebook" in row.inner_text() and "never" in row.inner_text()
    _no_serious_axe(page, "tokens, 360 px")

    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/surveys/").status_code == 200
    page.goto(f"{live_server.url}/accounts/tokens/")  # never shown again; used today now
    assert page.locator("#new-token").count() == 0 and key not in page.content()
    assert "never" not in page.locator("#token-table tbody tr").inner_text()

    page.get_by_role("button", name="Revoke token notebook").click()
    page.get_by_text("Token revoked: it no longer works.").wait_for()
    assert page.locator("#no-tokens").is_visible()
    refused = api.get("/api/v1/surveys/")
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_token"
    assert [m for m in problems.messages if "status of 400" not in m] == []
