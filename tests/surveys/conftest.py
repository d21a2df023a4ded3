"""Fixtures for the survey tests: researchers, API clients and a survey with every question kind.

Thin wrappers over :mod:`testsupport.factories` (bodies, answers, submissions) and
:mod:`tests.surveys.tally_reading` (the counter vectors); import those, never this file.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from surveys import services
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
