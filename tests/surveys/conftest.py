"""Fixtures for the survey tests: researchers, API clients and a survey with every question kind."""

from __future__ import annotations

import copy
import math
import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Survey, Tally
from surveys.tally_layout import tally_layout
from tests import boundary

FULL_SURVEY: dict[str, Any] = {
    "title": "Every kind",
    "description": "test",
    "questions": [
        {"key": "coin", "text": "Coin question?", "kind": "yes_no"},
        {
            "key": "mirror",
            "text": "Warner question?",
            "kind": "yes_no",
            "design": {"name": "warner", "p": 0.75},
        },
        {
            "key": "party",
            "text": "Which party?",
            "kind": "choice",
            "options": ["a", "b", "c", "d"],
            "design": {"name": "k_rr", "epsilon": 1.0},
        },
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "old"]},
        {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
    ],
}


def survey_body(**overrides: Any) -> dict[str, Any]:
    body = copy.deepcopy(FULL_SURVEY)
    body.update(overrides)
    return body


def full_answers(**overrides: Any) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "coin": True,
        "mirror": False,
        "party": "b",
        "age": "young",
        "hours": 12.5,
    }
    answers.update(overrides)
    return answers


def new_id() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user(username="alice", password="alice-pw-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user(username="bob", password="bob-pw-123")


@pytest.fixture
def api(alice) -> APIClient:
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def bob_api(bob) -> APIClient:
    client = APIClient()
    client.force_authenticate(bob)
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient(enforce_csrf_checks=True)


@pytest.fixture
def draft(alice) -> Survey:
    return boundary.survey_create(owner=alice, data=survey_body())


@pytest.fixture
def survey(draft) -> Survey:
    services.survey_open(survey=draft)
    draft.refresh_from_db()
    return draft


@pytest.fixture
def invite_survey(alice) -> Survey:
    s = boundary.survey_create(owner=alice, data=survey_body(access="invite"))
    services.survey_open(survey=s)
    s.refresh_from_db()
    return s


def submit(survey: Survey, answers: dict | None = None, **kwargs: Any):
    kwargs.setdefault("submission_id", new_id())
    kwargs.setdefault("randomizer", "browser")
    return boundary.submission_create(
        survey=survey, answers=full_answers() if answers is None else answers, **kwargs
    )


# --- reading the counter vectors ----------------------------------------------------------------


def tally_totals() -> dict[tuple[int, str, str], list[float]]:
    """Every slice's counter vector summed over its shards: {(survey id, group_key, group_value):
    vector}. Summed here (``math.fsum``: exact, whatever the row order), independently of the
    code under test; a slice's shards must all have the same length."""
    shards: dict[tuple[int, str, str], list[list[float]]] = {}
    rows = Tally.objects.values_list("survey_id", "group_key", "group_value", "sums")
    for survey_id, group_key, group_value, sums in rows:
        shards.setdefault((survey_id, group_key, group_value), []).append(sums)
    totals: dict[tuple[int, str, str], list[float]] = {}
    for key, vectors in shards.items():
        assert len({len(v) for v in vectors}) == 1, key
        totals[key] = [math.fsum(column) for column in zip(*vectors, strict=True)]
    return totals


def slice_counts(survey: Survey, group_key: str = "", group_value: str = "") -> dict[str, Any]:
    """One slice's summed vector read through the survey's slot layout:
    {"respondents": n, "cells": {(key, value): n}, "numbers": {key: (n, sum, sum of squares)}}
    (all zeros for a slice without rows)."""
    layout = tally_layout(survey.questions.order_by("position", "id"))
    vector = tally_totals().get((survey.pk, group_key, group_value), [0.0] * layout.size)
    assert len(vector) == layout.size
    return {
        "respondents": vector[0],
        "cells": {cell: vector[slot] for cell, slot in layout.cells.items()},
        "numbers": {key: tuple(vector[slot : slot + 3]) for key, slot in layout.numbers.items()},
    }
