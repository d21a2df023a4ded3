"""The single sign-on pages (accounts.oidc_views; docs/accounts.md#sso) against a real OpenID
provider: off by default (404, no button), the button and ``next``, a callback that works once
and only in the session that started it, and a provider that cannot be reached."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client, override_settings
from django.utils import translation

from tests.accounts.oidc_support import DOMAIN, refused, sso, sso_settings, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sso_on")]


def test_a_replayed_state_is_refused(provider):
    """The callback's state works once, and only in the session that started it: a copied
    callback URL (browser history, a log, a shoulder) signs in nobody."""
    client = Client()
    _, query = sso(client, provider, email=f"ana@{DOMAIN}")
    assert SESSION_KEY in client.session
    client.post("/accounts/logout/")
    refused(client.get("/accounts/oidc/callback/", query), client, "already used")
    attacker = Client()
    start(attacker)  # a session with states of its own, not this one
    refused(attacker.get("/accounts/oidc/callback/", query), attacker, "already used")


def test_off_by_default_and_no_button(provider):
    with override_settings(DENIABLE_OIDC_ISSUER=""):
        assert Client().get("/accounts/oidc/authenticate/").status_code == 404
        assert Client().get("/accounts/oidc/callback/?code=x&state=y").status_code == 404
        assert "Sign in with" not in Client().get("/accounts/login/").content.decode()
    page = Client().get("/accounts/login/?next=/surveys/new/").content.decode()
    assert "Sign in with Uni Login" in page
    assert 'href="/accounts/oidc/authenticate/?next=/surveys/new/"' in page


def test_next_is_followed_after_the_provider(provider):
    client = Client()
    response = client.get("/accounts/oidc/authenticate/?next=/accounts/")
    query = provider.sign_in(response["Location"], email=f"ana@{DOMAIN}")
    assert client.get("/accounts/oidc/callback/", query)["Location"] == "/accounts/"


def test_an_unreachable_provider_is_said_so(provider):
    with sso_settings(provider, DENIABLE_OIDC_ISSUER="http://127.0.0.1:9"):
        client = Client()
        response = client.get("/accounts/oidc/authenticate/")
        refused(response, client, "cannot be reached")


def test_the_button_is_in_english_and_spanish():
    with translation.override("es"):
        assert translation.gettext("Sign in with %(name)s") == "Iniciar sesión con %(name)s"
