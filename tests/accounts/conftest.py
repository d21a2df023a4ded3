"""Fixtures for the account tests: a researcher with a password, an administrator, and an empty
cache (the sign-up and reset rate limits count in it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from tests.accounts.support import PASSWORD
from testsupport.factories import make_user


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
