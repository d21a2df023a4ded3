"""Attacks on a capped survey (issue 24 stop 47, a seam of caps × batches): the cap's answer
must not move between batches, and a retry or a made-up token must not read it."""

from __future__ import annotations

import pytest
from django.test import override_settings

from surveys.selectors.surveys import survey_respondent_count
from testsupport import factories
from testsupport.factories import full_answers, new_id, survey_body

K = 10
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _post(client, survey, sid, answers, token=None):
    body = {"submission_id": sid, "randomizer": "browser", "answers": answers}
    if token:
        body["token"] = token
    return client.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")


def _error(response):
    return response.status_code, response.json().get("error")


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_probe_never_learns_of_an_unpublished_arrival(anon, alice):
    """Cap 13, k = 10: a reused id answered `response_cap_reached` at the 13th arrival while 10
    were published. Now a reused id is always answered as a retry, and a fresh submission is
    refused only once a whole batch brought the published count to the cap."""
    survey = factories.make_survey(alice, survey_body(access="open", response_cap=13))
    mine = new_id()
    assert _post(anon, survey, mine, full_answers()).status_code == 201
    for arrival in range(2, 20):
        factories.submit(survey, full_answers())
        published = survey_respondent_count(survey=survey)
        # the probe: a spent id with another body stores nothing, full or not
        assert _error(_post(anon, survey, mine, full_answers(coin=False))) == (
            409,
            "duplicate_conflict",
        ), arrival
        assert published == arrival // K * K
    # 19 stored, 10 published: still open although 19 > 13 — full comes with the batch
    assert _post(anon, survey, new_id(), full_answers()).status_code == 201  # the 20th
    assert survey_respondent_count(survey=survey) == 20
    assert _error(_post(anon, survey, new_id(), full_answers())) == (409, "response_cap_reached")
    assert _error(_post(anon, survey, mine, full_answers(coin=False))) == (
        409,
        "duplicate_conflict",
    )


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_made_up_token_is_answered_as_such_on_a_full_survey(anon, alice):
    survey = factories.make_survey(alice, survey_body(access="invite", response_cap=10))
    tokens = factories.invitations_create(survey=survey, count=12)
    for token in tokens[:10]:
        factories.submit(survey, full_answers(), token=token)
    assert survey_respondent_count(survey=survey) == 10
    made_up = _post(anon, survey, new_id(), full_answers(), token="made-up-token")
    assert made_up.status_code == 400 and "token" in made_up.json()["errors"], made_up.json()
    assert _error(_post(anon, survey, new_id(), full_answers(), token=tokens[0]))[1] == "token_used"
    assert _error(_post(anon, survey, new_id(), full_answers(), token=tokens[10])) == (
        409,
        "response_cap_reached",
    )


@pytest.mark.parametrize("access", ["open", "invite"])
def test_a_retry_of_the_submission_that_filled_the_survey_is_a_duplicate(anon, alice, access):
    """k = 1 (the test settings): the third answer fills a cap of 3; its retry (the response
    was lost on the way back) is `duplicate`, not `response_cap_reached` (the no-JS page showed
    "closed" and the respondent believed the answer lost)."""
    survey = factories.make_survey(alice, survey_body(access=access, response_cap=3))
    tokens = factories.invitations_create(survey=survey, count=3) if access == "invite" else []
    sids = [new_id() for _ in range(3)]
    for i, sid in enumerate(sids):
        token = tokens[i] if tokens else None
        assert _post(anon, survey, sid, full_answers(), token).status_code == 201
    retry = _post(anon, survey, sids[2], full_answers(), tokens[2] if tokens else None)
    assert retry.status_code == 200 and retry.json()["status"] == "duplicate", retry.json()
    assert _error(_post(anon, survey, new_id(), full_answers())) in {
        (409, "response_cap_reached"),
        (409, "token_required"),
    }
