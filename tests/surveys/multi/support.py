"""Shared by the multi-select tests (issue 16): a survey body with a randomized multi question,
how to open it and post one respondent's reported answers through the API."""

from __future__ import annotations

from surveys.models import Survey
from tests.surveys.api import support as api_support
from tests.surveys.api.support import url  # noqa: F401 — the tests import it from here

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


def open_survey(api, body: dict | None = None) -> Survey:
    return api_support.open_survey(api, body or BODY)


def submit_answer(anon, survey: Survey, answer, age: str = "young"):
    return api_support.post_response(anon, survey, {"drugs": answer, "age": age})


def all_false() -> dict[str, bool]:
    return dict.fromkeys(OPTIONS, False)
