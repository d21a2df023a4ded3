"""Fixtures for the survey tests: researchers, API clients and a survey with every question kind.

Thin wrappers over :mod:`testsupport.factories` (bodies, answers, submissions) and
:mod:`tests.surveys.tally_reading` (the counter vectors); import those, never this file.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from surveys import services
from surveys.collection import ratelimit
from surveys.collection.public_survey_cache import invalidate as public_survey_cache_invalidate
from surveys.models import Survey
from testsupport.factories import api_client, make_survey, make_user, survey_body


@pytest.fixture
def alice(db):
    return make_user("alice", "alice-pw-123")


@pytest.fixture
def bob(db):
    return make_user("bob", "bob-pw-123")


@pytest.fixture
def api(alice) -> APIClient:
    return api_client(alice)


@pytest.fixture
def bob_api(bob) -> APIClient:
    return api_client(bob)


@pytest.fixture
def anon() -> APIClient:
    return APIClient(enforce_csrf_checks=True)


@pytest.fixture
def draft(alice) -> Survey:
    return make_survey(alice, open_=False)


@pytest.fixture
def survey(draft) -> Survey:
    services.survey_open(survey=draft)
    draft.refresh_from_db()
    return draft


@pytest.fixture
def invite_survey(alice) -> Survey:
    s = make_survey(alice, survey_body(access="invite"))
    s.refresh_from_db()
    return s


@pytest.fixture
def fresh_limiter(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty cache and a closed rate-limit circuit for the test (modules that count
    submissions per window use it: ``pytest.mark.usefixtures("fresh_limiter")``)."""
    cache.clear()
    # Forget a previous cache failure (the limiter's process-local circuit breaker).
    monkeypatch.setattr(ratelimit, "_cache_down_until", 0.0)


@pytest.fixture
def fresh_public_cache() -> Iterator[None]:
    """The process-wide cache of public survey data emptied around the test."""
    public_survey_cache_invalidate()
    yield
    public_survey_cache_invalidate()
