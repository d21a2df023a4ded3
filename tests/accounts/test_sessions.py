"""The session guard (accounts.sessions; docs/accounts.md#sessions): a session without its
marker or its row is logged out, logging out removes the row, expired sessions are not listed,
and respondent paths never move a researcher's session row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ResearcherSession
from accounts.sessions import sessions_for
from tests.accounts.support import PASSWORD

pytestmark = pytest.mark.django_db


def _login() -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert response.status_code == 302
    return client


def test_a_session_without_its_marker_is_logged_out(carol):
    """A session made before the tracking existed (or whose marker was lost) is not trusted."""
    client = _login()
    session = client.session
    del session["_deniable_session"]
    session.save()
    assert client.get("/accounts/").status_code == 302


def test_logging_out_removes_the_row(carol):
    client = _login()
    assert ResearcherSession.objects.filter(user=carol).count() == 1
    client.post("/accounts/logout/")
    assert not ResearcherSession.objects.filter(user=carol).exists()


def test_respondent_paths_do_not_touch_a_researchers_session_row(carol):
    """A researcher answering a survey in the same browser: nothing of their session row moves
    with the submission (its time would date the answer)."""
    client = _login()
    row = ResearcherSession.objects.get(user=carol)
    ResearcherSession.objects.filter(pk=row.pk).update(last_seen=row.last_seen.replace(year=2020))
    client.post("/s/no-such-survey/submit/", {})
    client.get("/s/no-such-survey/")
    assert ResearcherSession.objects.get(pk=row.pk).last_seen.year == 2020
    client.get("/accounts/")
    assert ResearcherSession.objects.get(pk=row.pk).last_seen.year > 2020


def test_expired_sessions_are_not_listed_and_are_pruned_at_the_next_login(carol):
    _login()
    old = ResearcherSession.objects.get(user=carol)
    ResearcherSession.objects.filter(pk=old.pk).update(
        last_seen=timezone.now() - timedelta(hours=1)
    )
    assert not sessions_for(user=carol).exists()
    _login()
    assert list(ResearcherSession.objects.filter(user=carol)) == list(sessions_for(user=carol))
    assert not ResearcherSession.objects.filter(pk=old.pk).exists()


def test_the_row_holds_a_digest_not_the_marker(carol):
    client = _login()
    marker = client.session["_deniable_session"]
    row = ResearcherSession.objects.get(user=carol)
    assert marker not in row.digest and len(row.digest) == 64
