"""Fixtures for the account tests: a researcher with a password, an administrator, and an empty
cache (the sign-up and reset rate limits count in it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from tests.accounts.oidc_support import sso_settings
from tests.accounts.support import PASSWORD
from testsupport import oidc_provider
from testsupport.factories import make_user
from testsupport.oidc_provider import OpenIdProvider, running_provider
from testsupport.services import require_service


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def carol(db: None) -> Any:
    user = make_user("carol", PASSWORD)
    user.email = "carol@example.org"
    user.save()
    return user


@pytest.fixture
def admin(db: None) -> Any:
    user = make_user("root", "root-secure-pw-2024")
    user.is_staff = True
    user.save()
    return user


@pytest.fixture
def bob_token(db: None) -> Any:
    from accounts.services import api_token_create

    bob = make_user("bob", "bob-secure-pw-2024")
    return api_token_create(user=bob, name="bob's").token


@pytest.fixture(scope="module")
def provider() -> Iterator[OpenIdProvider]:
    """A real OpenID provider (npm's oidc-provider under Node) for the module's tests."""
    require_service(oidc_provider.available(), "node and npm's oidc-provider (npm ci)")
    with running_provider(["http://testserver/accounts/oidc/callback/"]) as running:
        yield running


@pytest.fixture
def sso_on(provider: OpenIdProvider) -> Iterator[None]:
    """Single sign-on on, against ``provider``, which issues honest tokens until told otherwise."""
    provider.tamper()
    with sso_settings(provider):
        yield
    provider.tamper()
