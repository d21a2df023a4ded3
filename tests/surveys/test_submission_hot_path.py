"""The submission endpoint's lean path (issue 5): a per-process survey cache and a conditional
INSERT. Closing must take effect at once even while the survey is cached; retries stay
idempotent; requests the lean path does not handle keep DRF's behaviour."""

from __future__ import annotations

import json

import pytest

from surveys import selectors, services
from surveys.models import Submission, Tally
from testsupport.factories import full_answers, new_id

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_public_cache")]


def _post(anon, survey, sid: str, **answers):
    body = {"submission_id": sid, "randomizer": "browser", "answers": full_answers(**answers)}
    return anon.post(
        f"/api/v1/surveys/{survey.slug}/responses/", json.dumps(body),
        content_type="application/json",
    )  # fmt: skip


def test_close_takes_effect_while_cached(anon, survey):
    first = new_id()
    assert _post(anon, survey, first).status_code == 201  # the survey is now cached
    services.survey_close(survey=survey)
    response = _post(anon, survey, new_id())
    assert response.status_code == 409
    assert response.json()["error"] == "survey_closed"
    # A retry of the accepted one is still answered as a duplicate after closing.
    again = _post(anon, survey, first)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert Submission.objects.filter(survey=survey).count() == 1


def test_stored_rows_and_tallies(anon, survey):
    assert _post(anon, survey, new_id()).status_code == 201
    assert _post(anon, survey, new_id(), coin=False).status_code == 201
    assert Submission.objects.filter(survey=survey).count() == 2
    stored = sorted(
        Submission.objects.filter(survey=survey).values_list("answers", flat=True),
        key=lambda answers: answers["coin"],
    )
    assert stored == [full_answers(coin=False), full_answers()]
    respondents = Tally.objects.filter(survey=survey, group_key="")
    assert sum(t.sums[0] for t in respondents) == 2
    counts = selectors.survey_counts(survey=survey)
    assert counts.respondents == 2 and counts.cells[""]["coin"] == {"yes": 1, "no": 1}


def test_same_id_other_body_conflicts(anon, survey):
    sid = new_id()
    assert _post(anon, survey, sid).status_code == 201
    response = _post(anon, survey, sid, coin=False)
    assert response.status_code == 409 and response.json()["error"] == "duplicate_conflict"


def test_non_json_requests_keep_drf_behaviour(anon, survey):
    url = f"/api/v1/surveys/{survey.slug}/responses/"
    assert anon.post(url, "x", content_type="text/plain").status_code == 415
    bad = anon.post(url, "{not json", content_type="application/json")
    assert bad.status_code == 400 and "errors" in bad.json()
    array = anon.post(url, "[]", content_type="application/json")
    assert array.status_code == 400 and "errors" in array.json()
