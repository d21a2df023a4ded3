"""Single sign-on in Chromium against a real OpenID provider (npm's oidc-provider under Node,
started here; docs/accounts.md#sso): the login page's button, the provider's sign-in form, the
authorization-code flow with PKCE back to Deniable, the sessions page saying how; and a person
outside the allowed domains sent back to the login page with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from tests.accounts.oidc_support import DOMAIN, NAME, sso_settings
from testsupport import oidc_provider
from testsupport.oidc_provider import OpenIdProvider, running_provider
from testsupport.services import require_service

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def provider(live_server: Any) -> Iterator[OpenIdProvider]:
    require_service(oidc_provider.available(), "node and npm's oidc-provider (npm ci)")
    cache.clear()
    with running_provider([f"{live_server.url}/accounts/oidc/callback/"]) as running:
        with sso_settings(running):
            yield running


def _provider_sign_in(page: Any, email: str) -> None:
    page.get_by_role("link", name=f"Sign in with {NAME}").click()
    page.wait_for_selector("#login")
    page.fill("#login", email)
    page.get_by_role("button", name="Sign in").click()


def test_sign_in_with_the_provider_and_see_the_session(live_server, provider, new_page):
    page, problems = new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    _provider_sign_in(page, f"ana@{DOMAIN}")
    page.wait_for_url(f"{live_server.url}/surveys/")
    ana = User.objects.get(email=f"ana@{DOMAIN}")
    assert not ana.is_staff
    page.goto(f"{live_server.url}/accounts/sessions/")
    current = page.locator("tr.current")
    assert current.count() == 1
    assert "single sign-on" in current.inner_text() and "this browser" in current.inner_text()
    assert problems.messages == []


def test_someone_outside_the_allowed_domains_is_sent_back(live_server, provider, new_page):
    page, _ = new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    _provider_sign_in(page, "eve@evil.example")
    page.wait_for_url(f"{live_server.url}/accounts/login/")
    text = page.locator("main").inner_text()
    assert f"Sign-in with {NAME} was refused" in text and "not in a domain or group" in text
    assert not User.objects.filter(email="eve@evil.example").exists()
