"""API v1 (docs/api.md): a respondent's POST …/responses/: every status code."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Submission, Tally
from tests.surveys.api.support import API, post_response, url
from tests.surveys.tally_reading import tally_totals
from testsupport import factories
from testsupport.factories import full_answers, new_id, submit, survey_body

pytestmark = pytest.mark.django_db


def test_response_accepted_duplicate_conflict(anon, survey):
    sid = new_id()
    r = post_response(anon, survey, submission_id=sid)
    assert r.status_code == 201 and r.json() == {"submission_id": sid, "status": "accepted"}
    r = post_response(anon, survey, submission_id=sid)
    assert r.status_code == 200 and r.json()["status"] == "duplicate"
    r = post_response(anon, survey, full_answers(coin=False), submission_id=sid)
    assert r.status_code == 409 and r.json()["error"] == "duplicate_conflict"
    assert Submission.objects.count() == 1


def test_response_needs_no_csrf_even_with_a_session(alice, survey):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert post_response(client, survey).status_code == 201


def test_response_404_and_409(anon, survey, draft, alice):
    assert post_response(anon, survey).status_code == 201
    r = anon.post(f"{API}/surveys/nope/responses/", {}, format="json")
    assert r.status_code == 404
    other = factories.survey_create(owner=alice, data=survey_body())
    assert post_response(anon, other).status_code == 404  # a draft is not public
    services.survey_close(survey=survey)
    r = post_response(anon, survey)
    assert r.status_code == 409 and r.json()["error"] == "survey_closed"


def test_response_tokens(api, anon, invite_survey):
    (token,) = api.post(url(invite_survey, "invitations/"), {"count": 1}, format="json").json()[
        "tokens"
    ]
    r = post_response(anon, invite_survey)
    assert r.status_code == 409 and r.json()["error"] == "token_required"
    assert post_response(anon, invite_survey, token=token).status_code == 201
    r = post_response(anon, invite_survey, token=token)
    assert r.status_code == 409 and r.json()["error"] == "token_used"
    r = post_response(anon, invite_survey, token="forged")
    assert r.status_code == 400 and "token" in r.json()["errors"]


def test_response_cap(anon, survey):
    survey.response_cap = 1
    survey.save()
    assert post_response(anon, survey).status_code == 201
    r = post_response(anon, survey)
    assert r.status_code == 409 and r.json()["error"] == "response_cap_reached"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"submission_id": "123"}, "submission_id"),
        ({"submission_id": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, "submission_id"),  # v1
        ({"randomizer": "server"}, "randomizer"),
        ({"answers": ["coin"]}, "answers"),
        ({"answers": full_answers(coin="true")}, "answers.coin"),
        ({"answers": full_answers(nope=True)}, "answers.nope"),
        ({"answers": full_answers(party="zz")}, "answers.party"),
        ({"answers": full_answers(age="zz")}, "answers.age"),
        ({"answers": full_answers(hours=1e9)}, "answers.hours"),
        ({"answers": full_answers(hours=[1])}, "answers.hours"),
        ({"answers": {"coin": True}}, "answers.mirror"),
    ],
)
def test_response_400_names_the_field(anon, survey, body, field):
    submit(survey)  # some data already there
    before = (Submission.objects.count(), Tally.objects.count(), tally_totals())
    r = post_response(anon, survey, **body)
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()
    assert (Submission.objects.count(), Tally.objects.count(), tally_totals()) == before


def test_response_malformed_json(anon, survey):
    path = url(survey, "responses/")
    body = json.dumps({"submission_id": new_id(), "randomizer": "browser", "answers": {}})
    for raw in ("{", '"string"', body.replace("{}", '{"hours": NaN}')):
        r = anon.post(path, raw, content_type="application/json")
        assert r.status_code == 400, raw
    assert Submission.objects.count() == 0


def test_a_slug_recreated_within_the_cache_time_gets_the_new_survey(alice, anon):
    """Seam: the submission path caches the survey by slug for a few seconds
    (surveys/collection/public_survey_cache.py). A survey deleted and recreated under the same
    custom slug
    within that time answered 404 "No such survey." (found by the memo-scope Chromium test), and
    the cached questions were the deleted survey's. The stale entry is now read afresh once and
    the answer validated against the new survey."""
    from surveys.models import Submission
    from surveys.services import survey_close, survey_delete
    from testsupport.factories import make_survey

    old = make_survey(alice, survey_body(), slug="same-slug")
    assert post_response(anon, old).status_code == 201  # fills the per-process cache
    survey_close(survey=old)
    survey_delete(survey=old, confirm="same-slug")
    new = make_survey(alice, survey_body(title="Again"), slug="same-slug")
    r = post_response(anon, new)
    assert r.status_code == 201, r.content
    assert Submission.objects.filter(survey=new).count() == 1
    # A slug that no longer exists at all is still a 404.
    survey_close(survey=new)
    survey_delete(survey=new, confirm="same-slug")
    assert post_response(anon, new).status_code == 404
