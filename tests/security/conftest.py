"""Fixtures for the security tests: two researchers, A's team on her open survey (a viewer and an
editor), A's surveys (open, draft, invite-only) with
submissions and a finished release (built by :mod:`testsupport.factories`). The helpers are in
:mod:`tests.security.support`; import that, never this file."""

from __future__ import annotations

import pytest

from privacy.models import Release
from surveys.models import Collaborator
from tests.security.support import PASSWORD_A, PASSWORD_B, World
from testsupport.factories import (
    make_api_token,
    make_physical_survey,
    make_release,
    make_user,
    physical_answers,
    submit_many,
)


@pytest.fixture
def world(db) -> World:
    alice = make_user("alice", PASSWORD_A)
    bob = make_user("bob", PASSWORD_B)
    survey = make_physical_survey(alice, title="Alice secret survey")
    submit_many(survey, 30, lambda i: physical_answers(cheated=i % 2 == 0, hours=i))
    # The task is enqueued on commit, which a test transaction never reaches: run it here.
    release = make_release(survey, alice, {"mechanism": "laplace", "epsilon": 0.5})
    assert release.status == Release.Status.DONE
    viewer = make_user("vera", "vera-secure-pw-2024")
    editor = make_user("eddie", "eddie-secure-pw-2024")
    Collaborator.objects.create(survey=survey, user=viewer, role="viewer")
    Collaborator.objects.create(survey=survey, user=editor, role="editor")
    return World(
        alice=alice,
        bob=bob,
        token_a=make_api_token(alice),
        token_b=make_api_token(bob),
        survey=survey,
        draft=make_physical_survey(alice, title="Alice draft survey", open_=False),
        invite=make_physical_survey(alice, title="Alice invite survey", access="invite"),
        release=release,
        bob_survey=make_physical_survey(bob, title="Bob survey"),
        viewer=viewer,
        editor=editor,
        carol=make_user("carol", "carol-secure-pw-2024"),
    )
