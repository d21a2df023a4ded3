"""Shared by the multi-select tests (issue 16): a survey body with a randomized multi question,
how to open it and post one respondent's reported answers through the API."""

from __future__ import annotations

import uuid

from surveys.models import Survey

OPTIONS = ["cannabis", "cocaine", "ecstasy"]
# The default coin design per option: truth ½, forced yes ¼, forced no ¼ (ε = ln 3 each).
COIN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
BODY = {
    "title": "Drugs",
    "questions": [
        {"key": "drugs", "text": "Which have you used?", "kind": "multi", "options": OPTIONS},
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "old"]},
    ],
}


def url(survey: Survey, suffix: str = "") -> str:
    return f"/api/v1/surveys/{survey.slug}/{suffix}"


def open_survey(api, body: dict | None = None) -> Survey:
    r = api.post("/api/v1/surveys/", body or BODY, format="json")
    assert r.status_code == 201, r.content
    survey = Survey.objects.get(slug=r.json()["slug"])
    assert api.post(url(survey, "open/")).status_code == 200
    survey.refresh_from_db()
    return survey


def submit_answer(anon, survey: Survey, answer, age: str = "young"):
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": {"drugs": answer, "age": age},
    }
    return anon.post(url(survey, "responses/"), body, format="json")


def all_false() -> dict[str, bool]:
    return dict.fromkeys(OPTIONS, False)
