"""Shared by the cheater-detection tests: the design, a survey body, and how to open the survey and
post one answer through the API (issue 15)."""

from __future__ import annotations

from surveys.models import Survey
from tests.surveys.api import support as api_support
from tests.surveys.api.support import url  # noqa: F401 — the tests import it from here

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


def open_survey(api) -> Survey:
    return api_support.open_survey(api, BODY)


def submit_answer(anon, survey: Survey, answer, age: str = "young"):
    return api_support.post_response(anon, survey, {"cdm": answer, "age": age})
