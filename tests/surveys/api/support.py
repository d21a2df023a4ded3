"""Helpers of the survey API tests (tests/surveys/api/): the API root, a survey's URL, a
response POST and a batch of responses."""

from __future__ import annotations

from testsupport.factories import full_answers, new_id, submit

API = "/api/v1"


def url(survey, suffix: str = "") -> str:
    return f"{API}/surveys/{survey.slug}/{suffix}"


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
