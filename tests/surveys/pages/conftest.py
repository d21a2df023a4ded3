"""Fixtures of the server-rendered page tests: two researchers and an open survey of every kind
(import helpers from ``tests.surveys.pages.support``, never this file)."""

from __future__ import annotations

import pytest

from surveys.models import Survey
from tests.surveys.pages.support import make_survey
from testsupport import factories


@pytest.fixture
def alice():
    return factories.make_user("alice", "pw-alice-123")


@pytest.fixture
def bob():
    return factories.make_user("bob", "pw-bob-123")


@pytest.fixture
def survey(alice) -> Survey:
    return make_survey(alice)
