"""Fixtures of the releases API tests: a survey with 30 respondents and its owner's API client
(import helpers from ``tests.privacy.api.support``, never this file)."""

from __future__ import annotations

import pytest

from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey


@pytest.fixture
def survey(owner):
    return make_survey(owner, epsilon=1.0, respondents=30)


@pytest.fixture
def client(owner):
    return api_client(owner)
