"""Shared by the single sign-on tests: the settings that turn it on against a test provider, and
one sign-in through it with Django's test client."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY
from django.test import Client, override_settings

from testsupport.oidc_provider import CLIENT_ID, CLIENT_SECRET, OpenIdProvider

DOMAIN = "uni.example"
GROUP = "deniable-researchers"
NAME = "Uni Login"


def sso_settings(provider: OpenIdProvider, **more: Any) -> override_settings:
    values: dict[str, Any] = {
        "DENIABLE_OIDC_ISSUER": provider.issuer,
        "DENIABLE_OIDC_PROVIDER_NAME": NAME,
        "DENIABLE_OIDC_ALLOWED_DOMAINS": [DOMAIN],
        "DENIABLE_OIDC_ALLOWED_GROUPS": [GROUP],
        "OIDC_RP_CLIENT_ID": CLIENT_ID,
        "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
        "OIDC_RP_SCOPES": "openid email profile groups",
    }
    return override_settings(**(values | more))


def start(client: Client) -> str:
    response = client.get("/accounts/oidc/authenticate/")
    assert response.status_code == 302, response.content
    return str(response["Location"])


def sso(client: Client, provider: OpenIdProvider, **claims: Any) -> tuple[Any, dict[str, str]]:
    """Start at Deniable, sign in at the provider, come back: (callback response, its query)."""
    query = provider.sign_in(start(client), **claims)
    return client.get("/accounts/oidc/callback/", query), query


def refused(response: Any, client: Client, words: str) -> None:
    """The sign-in was refused: back on the login page, saying why, and nobody logged in."""
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert SESSION_KEY not in client.session
    page = client.get("/accounts/login/").content.decode()
    assert f"Sign-in with {NAME} was refused" in page and words in page, page
