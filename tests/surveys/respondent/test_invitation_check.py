"""Respondent pages (issue 10): the invitation check (answers without consuming the token, bad
bodies, rate limit, schema, the check URL on invite pages)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from surveys.models import Survey
from surveys.services import survey_close
from tests.surveys.respondent.support import COIN, make, page
from testsupport.factories import invitations_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def check_url(survey: Survey) -> str:
    return reverse("api-survey-invitations-check", args=[survey.slug])


def test_invitation_check_answers_without_consuming_the_token(anon, alice):
    survey = make(alice, [COIN], access="invite")
    [token, other] = invitations_create(survey=survey, count=2)
    url = check_url(survey)
    assert url == f"/api/v1/surveys/{survey.slug}/invitations/check/"
    for _ in range(3):  # asking again and again never uses it up
        r = anon.post(url, {"token": token}, format="json")
        assert r.status_code == 200 and r.json() == {"valid": True}
    assert survey.invitations.filter(used=True).count() == 0
    assert anon.post(url, {"token": "not-a-token"}, format="json").json() == {"valid": False}
    # The token still works for the one submission, and is then reported as used.
    body = {
        "submission_id": "6f1c2b1e-4a55-4c1b-9d8e-0a3c4f5e6a7b",
        "randomizer": "browser",
        "answers": {"coin": True},
        "token": token,
    }
    assert anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json").status_code
    assert survey.invitations.filter(used=True).count() == 1
    assert anon.post(url, {"token": token}, format="json").json() == {"valid": False}
    assert anon.post(url, {"token": other}, format="json").json() == {"valid": True}
    survey_close(survey=survey)
    assert anon.post(url, {"token": other}, format="json").json() == {"valid": False}


def test_invitation_check_refuses_bad_bodies_naming_the_field(anon, alice):
    survey = make(alice, [COIN], access="invite")
    url = check_url(survey)
    for body in ({}, {"token": ""}, {"token": 12}, {"token": ["x"]}, {"token": "x" * 201}):
        r = anon.post(url, body, format="json")
        assert r.status_code == 400, body
        assert "token" in r.json()["errors"], body
    r = anon.post(url, [1, 2], format="json")
    assert r.status_code == 400 and "non_field_errors" in r.json()["errors"]
    r = anon.post(url, data="{nope", content_type="application/json")
    assert r.status_code == 400 and "errors" in r.json()
    assert anon.get(url).status_code == 405
    r = anon.post(
        "/api/v1/surveys/no-such-survey/invitations/check/", {"token": "x"}, format="json"
    )
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_invitation_check_of_an_open_survey_is_false_and_rate_limited(anon, alice, settings):
    survey = make(alice, [COIN])
    url = check_url(survey)
    assert anon.post(url, {"token": "anything"}, format="json").json() == {"valid": False}
    # Checks of tokens that are not usable count against the sender (issue 21, item 13).
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 2
    settings.DENIABLE_JUNK_RATE_LIMIT = 2
    cache.clear()
    codes = [anon.post(url, {"token": "x"}, format="json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    # A separate counter: checks do not eat the submissions' allowance.
    body = {
        "submission_id": "0b6a4f2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
        "randomizer": "browser",
        "answers": {"coin": False},
    }
    r = anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")
    assert r.status_code == 201


def test_invitation_check_is_in_the_openapi_schema(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(target),
        "--urlconf",
        "tests.surveys.schema_urls",
    )
    text = target.read_text()
    assert "/api/v1/surveys/{slug}/invitations/check/" in text
    assert "InvitationCheckRequest" in text and "InvitationCheckResponse" in text


def test_invite_page_carries_the_check_url_and_open_page_does_not(client, alice):
    invite = make(alice, [COIN], access="invite")
    _, data = page(client, invite)
    assert data["invitation_check_url"] == check_url(invite)
    _, data = page(client, make(alice, [COIN]))
    assert data["invitation_check_url"] is None
