"""Shared builders for the release and budget tests (unit and integration)."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import get_user_model

from surveys.models import Survey
from surveys.services import survey_open
from tests.boundary import submission_create, survey_create

QUESTIONS: list[dict[str, Any]] = [
    {"key": "cheated", "text": "Did you cheat?", "kind": "yes_no"},
    {
        "key": "drug",
        "text": "Which one?",
        "kind": "choice",
        "options": ["none", "cannabis", "other"],
    },
    {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south"]},
    {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 99},
]


def make_user(username: str = "alice", password: str = "pw-123456789"):
    return get_user_model().objects.create_user(username=username, password=password)


def make_survey(
    owner, *, epsilon: float = 1.0, delta: float = 1e-6, respondents: int = 40
) -> Survey:
    survey = survey_create(
        owner=owner,
        data={
            "title": "Release test",
            "budget": {"epsilon": epsilon, "delta": delta},
            "questions": QUESTIONS,
        },
    )
    survey = survey_open(survey=survey)
    for i in range(respondents):
        submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers=answer(i),
        )
    return Survey.objects.get(pk=survey.pk)


def answer(i: int) -> dict[str, Any]:
    return {
        "cheated": i % 3 == 0,
        "drug": ["none", "cannabis", "other"][i % 3],
        "region": "north" if i % 2 else "south",
        "age": 20 + i % 50,
    }
