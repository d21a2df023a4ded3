"""Helpers of the survey API tests (tests/surveys/api/ and the per-design folders): the API root,
a survey's URL, creating and opening a survey through the API, a response POST and a batch of
responses."""

from __future__ import annotations

from surveys.models import Survey
from testsupport.factories import full_answers, new_id, submit

API = "/api/v1"


def url(survey, suffix: str = "") -> str:
    return f"{API}/surveys/{survey.slug}/{suffix}"


def open_survey(api, body: dict) -> Survey:
    """``body`` created by ``POST /surveys/`` and opened, as a researcher's client would."""
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 201, r.content
    survey = Survey.objects.get(slug=r.json()["slug"])
    assert api.post(url(survey, "open/")).status_code == 200
    survey.refresh_from_db()
    return survey


def post_response(client, survey, answers=None, **body):
    payload = {"submission_id": new_id(), "randomizer": "browser"}
    payload["answers"] = full_answers() if answers is None else answers
    payload.update(body)
    return client.post(url(survey, "responses/"), payload, format="json")


def some_responses(survey, n=12):
    for i in range(n):
        submit(
            survey,
            full_answers(
                coin=i % 3 == 0, party="abcd"[i % 4], age=["young", "old"][i % 2], hours=float(i)
            ),
        )
