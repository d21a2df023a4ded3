"""The account pages without a browser: the tokens page (errors per field, the cap, someone
else's token), the account page's links, and the invitations page without email."""

from __future__ import annotations

import re

import pytest
from django.test import Client, override_settings

from accounts.models import ApiToken, SignupInvitation

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_tokens_page_creates_shows_once_and_names_bad_fields(carol):
    client = _client(carol)
    bad = client.post("/accounts/tokens/", {"name": "x" * 101, "expires_in_days": "0"})
    assert bad.status_code == 400
    text = bad.content.decode()
    assert "Ensure this value has at most 100 characters" in text
    assert "Ensure this value is greater than or equal to 1." in text
    assert ApiToken.objects.count() == 0
    made = client.post("/accounts/tokens/", {"name": "", "expires_in_days": "10"})
    assert made.status_code == 200
    key = re.search(r'id="new-token">(dnb_[^<]+)<', made.content.decode()).group(1)
    token = ApiToken.objects.get()
    assert token.name == "API" and (token.expires - token.created).days == 10
    listed = client.get("/accounts/tokens/").content.decode()
    assert key not in listed and "API" in listed


@override_settings(DENIABLE_API_TOKENS_PER_USER=1)
def test_tokens_page_says_when_the_cap_is_reached(carol):
    client = _client(carol)
    assert client.post("/accounts/tokens/", {"expires_in_days": "5"}).status_code == 200
    refused = client.post("/accounts/tokens/", {"expires_in_days": "5"})
    assert refused.status_code == 409
    assert "the most allowed: revoke one first" in refused.content.decode()


def test_revoking_someone_elses_token_is_a_404(carol, bob_token):
    response = _client(carol).post(f"/accounts/tokens/{bob_token.pk}/revoke/")
    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=bob_token.pk).exists()


def test_the_nav_and_account_page_link_the_account_pages(carol, admin):
    page = _client(carol).get("/surveys/").content.decode()
    assert 'href="/accounts/">Account</a>' in page
    account = _client(carol).get("/accounts/").content.decode()
    assert "carol@example.org" in account and 'href="/accounts/invitations/"' not in account
    assert 'href="/accounts/invitations/"' in _client(admin).get("/accounts/").content.decode()


@override_settings(EMAIL_BACKEND="accounts.mail.NotConfiguredBackend")
def test_invitations_without_email_show_the_link_to_pass_on(admin):
    client = _client(admin)
    page = client.get("/accounts/invitations/").content.decode()
    assert "This server cannot send email" in page and 'name="send_email"' not in page
    made = client.post(
        "/accounts/invitations/", {"email": "kim@example.org", "days": "7", "send_email": "on"}
    )
    assert made.status_code == 200
    text = made.content.decode()
    assert 'id="signup-link"' in text and "Emailed to" not in text
    assert SignupInvitation.objects.get().email == "kim@example.org"
