"""Fixtures for the release and budget tests (thin wrappers over :mod:`testsupport.factories`)."""

from __future__ import annotations

import pytest

from testsupport.factories import make_user


@pytest.fixture
def owner():
    """The researcher who owns the survey under test."""
    return make_user("owner")
