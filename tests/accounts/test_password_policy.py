"""The password policy is stated where a password is chosen (sign-up, change, reset) and in the
docs, and what is stated is what AUTH_PASSWORD_VALIDATORS enforces (docs/accounts.md#passwords)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import password_validators_help_texts
from django.contrib.auth.tokens import default_token_generator
from django.test import Client, override_settings
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

pytestmark = pytest.mark.django_db
DOCS = Path(settings.BASE_DIR) / "docs" / "accounts.md"


def _stated(page: str) -> None:
    text = html.unescape(page)
    rules = password_validators_help_texts()
    assert len(rules) == len(settings.AUTH_PASSWORD_VALIDATORS) == 4
    for rule in rules:
        assert rule in text, rule


def test_the_rules_are_on_sign_up_change_and_reset(carol):
    with override_settings(DENIABLE_OPEN_SIGNUP=True):
        _stated(Client().get("/accounts/signup/").content.decode())
    client = Client()
    client.force_login(carol)
    _stated(client.get("/accounts/password/change/").content.decode())
    uid = urlsafe_base64_encode(force_bytes(carol.pk))
    token = default_token_generator.make_token(carol)
    reset = Client().get(f"/accounts/password/reset/{uid}/{token}/", follow=True)
    _stated(reset.content.decode())


def test_the_docs_state_the_same_minimum_length():
    (length,) = [
        v["OPTIONS"]["min_length"]
        for v in settings.AUTH_PASSWORD_VALIDATORS
        if v["NAME"].endswith("MinimumLengthValidator")
    ]
    text = DOCS.read_text()
    assert f"at least {length} characters" in text
    for words in ("not common", "not all digits", "not too similar to the username or email"):
        assert words in text
