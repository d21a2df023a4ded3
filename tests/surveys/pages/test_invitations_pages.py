"""Server-rendered pages: the invitations page (counts, revoke with confirmation, permissions)."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from surveys.services import survey_close
from tests.surveys.pages.support import (
    ALL_KINDS,
    make_survey,
)

pytestmark = pytest.mark.django_db


def _count(html: str, name: str) -> int:
    marker = f'id="count-{name}">'
    return int(html.split(marker, 1)[1].split("<", 1)[0])


def test_invitations_page_counts_and_revoke_needs_confirmation(client, alice):
    from testsupport.factories import invitations_create, submission_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    tokens = invitations_create(survey=survey, count=4)
    submission_create(
        survey=survey,
        submission_id=str(uuid.uuid4()),
        randomizer="browser",
        answers={"cheated": True},
        token=tokens[0],
    )
    client.force_login(alice)
    page = reverse("survey-invitations", args=[survey.slug])
    response = client.get(page)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert [_count(html, n) for n in ("issued", "used", "revoked", "remaining")] == [4, 1, 0, 3]
    assert "#t=" not in html  # tokens are never shown again
    assert "Yes, revoke the 3 unused links" in html

    revoke = reverse("survey-invitations-revoke", args=[survey.slug])
    assert client.get(revoke).status_code == 405
    refused = client.post(revoke, {}, follow=True)
    assert "Tick the box to confirm" in refused.content.decode()
    assert survey.invitations.filter(revoked=True).count() == 0
    done = client.post(revoke, {"confirm": "yes"}, follow=True)
    html = done.content.decode()
    assert "Revoked 3 unused invitation links" in html
    assert [_count(html, n) for n in ("issued", "used", "revoked", "remaining")] == [4, 1, 3, 0]
    assert "revoke-button" not in html  # nothing left to revoke


def test_invitations_page_for_open_and_closed_surveys(client, alice):
    open_survey = make_survey(alice, ALL_KINDS[:1])
    client.force_login(alice)
    html = client.get(reverse("survey-invitations", args=[open_survey.slug])).content.decode()
    assert "needs no invitations" in html and 'name="count"' not in html
    response = client.post(reverse("survey-invitations", args=[open_survey.slug]), {"count": 2})
    assert response.status_code == 409 and "set access to" in response.content.decode()
    invited = make_survey(alice, ALL_KINDS[:1], access="invite")
    survey_close(survey=invited)
    html = client.get(reverse("survey-invitations", args=[invited.slug])).content.decode()
    assert "The survey is closed" in html and 'name="count"' not in html


def test_other_researcher_gets_404_on_invitation_pages(client, alice, bob):
    from testsupport.factories import invitations_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    invitations_create(survey=survey, count=2)
    client.force_login(bob)
    assert client.get(reverse("survey-invitations", args=[survey.slug])).status_code == 404
    revoke = reverse("survey-invitations-revoke", args=[survey.slug])
    assert client.post(revoke, {"confirm": "yes"}).status_code == 404
    assert survey.invitations.filter(revoked=True).count() == 0
