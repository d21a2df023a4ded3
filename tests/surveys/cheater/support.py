"""Shared by the cheater-detection tests: the design, a survey body, and how to open the survey and
post one answer through the API (issue 15)."""

from __future__ import annotations

import uuid

from surveys.models import Survey

# Group 1: forced yes ¼, forced no ¼ (truth ½): ε₁ = ln(¾/¼) = ln 3.
# Group 2: forced yes ½, forced no ¼ (truth ¼): ε₂ = max(|ln(¾/½)|, |ln(½/¼)|) = ln 2.
GROUPS = [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]
DESIGN = {"name": "cheater_detection", "groups": GROUPS}
BODY = {
    "title": "Cheating detection",
    "questions": [
        {"key": "cdm", "text": "I have taken a bribe.", "kind": "yes_no", "design": DESIGN},
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "old"]},
    ],
}


def url(survey: Survey, suffix: str = "") -> str:
    return f"/api/v1/surveys/{survey.slug}/{suffix}"


def open_survey(api) -> Survey:
    r = api.post("/api/v1/surveys/", BODY, format="json")
    assert r.status_code == 201, r.content
    survey = Survey.objects.get(slug=r.json()["slug"])
    assert api.post(url(survey, "open/")).status_code == 200
    survey.refresh_from_db()
    return survey


def submit_answer(anon, survey: Survey, answer, age: str = "young"):
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": {"cdm": answer, "age": age},
    }
    return anon.post(url(survey, "responses/"), body, format="json")
