"""``createresearcher`` (moved here with the accounts app): the account, and a new API token
printed once."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import override_settings
from rest_framework.test import APIClient

from accounts import keys
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def _key(text: str) -> str:
    found = re.search(r"API token: (dnb_\S+) \(expires \d{4}-\d\d-\d\d; shown once\)", text)
    assert found, text
    return found.group(1)


def test_createresearcher():
    out = io.StringIO()
    call_command(
        "createresearcher", "carol", "--password", "pw-carol-123", "--email", "c@x.org", stdout=out
    )
    user = get_user_model().objects.get(username="carol")
    assert user.check_password("pw-carol-123") and user.email == "c@x.org"
    key = _key(out.getvalue())
    assert ApiToken.objects.get(user=user).digest == keys.digest(key)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/surveys/").status_code == 200
    with pytest.raises(CommandError):
        call_command("createresearcher", "carol", "--password", "other", stdout=io.StringIO())
    with pytest.raises(CommandError, match="Password refused"):  # too short (validators)
        call_command(
            "createresearcher", "carol", "--password", "other-pw", "--update", stdout=io.StringIO()
        )
    again = io.StringIO()
    call_command(
        "createresearcher", "carol", "--password", "other-pw-4567", "--update", stdout=again
    )
    user.refresh_from_db()
    assert user.check_password("other-pw-4567")
    # A new token; the first one keeps working until it expires or is revoked.
    assert _key(again.getvalue()) != key
    assert ApiToken.objects.filter(user=user).count() == 2


def test_seed_demo_replaces_its_own_token(db):
    first = io.StringIO()
    call_command("seed_demo", "--respondents", "0", stdout=first)
    second = io.StringIO()
    call_command("seed_demo", "--respondents", "0", stdout=second)
    key = re.search(r"API token\s*: (\S+)", second.getvalue()).group(1)
    old = re.search(r"API token\s*: (\S+)", first.getvalue()).group(1)
    assert key != old
    assert list(ApiToken.objects.values_list("digest", flat=True)) == [keys.digest(key)]


def test_createresearcher_prints_no_token_an_account_with_a_second_factor_could_not_use():
    """A token stands for a login past the second factor the account needs (docs/accounts.md
    #two-factor): the command, which has no code, issues none where one is needed, and says so."""
    with override_settings(DENIABLE_OTP_REQUIRED=True):
        out = io.StringIO()
        call_command("createresearcher", "dora", "--password", "pw-dora-12345", stdout=out)
    user = get_user_model().objects.get(username="dora")
    assert "API token:" not in out.getvalue() and "two-factor" in out.getvalue()
    assert not ApiToken.objects.filter(user=user).exists()
    # Not required, not enrolled: a token as before.
    again = io.StringIO()
    call_command(
        "createresearcher", "dora", "--password", "pw-dora-67890", "--update", stdout=again
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {_key(again.getvalue())}")
    assert client.get("/api/v1/surveys/").status_code == 200
