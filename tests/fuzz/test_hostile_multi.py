"""Hostile answers to a multi-select question (issue 16): any JSON value as the answer, or as
any option's value, is accepted (a valid {option: bool}) or refused with 400 naming
``answers.drugs`` — never a 500 — and a refusal stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from surveys.models import Submission, Survey
from tests.fuzz.hostile import DB, hostile, junk_json
from testsupport import factories

OPTIONS = ["a", "b", "c"]


@pytest.fixture
def multi_survey(db: None) -> Survey:
    cache.clear()
    owner = factories.make_user("hostile-multi", "pw-hostile-123")
    body = {
        "title": "Hostile multi",
        "questions": [{"key": "drugs", "text": "?", "kind": "multi", "options": OPTIONS}],
    }
    return factories.make_survey(owner, body)


answers = st.one_of(
    st.fixed_dictionaries(
        {o: st.one_of(st.booleans(), hostile) for o in OPTIONS},
        optional={"d": hostile, "x" * 300: hostile},
    ),
    junk_json,
)


@DB
@given(answer=answers)
def test_multi_answers_hostile(multi_survey: Survey, answer: Any) -> None:
    import uuid

    cache.clear()
    before = Submission.objects.count()
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": {"drugs": answer},
    }
    raw = json.dumps(body, allow_nan=True, default=repr)
    r = APIClient().generic(
        "POST",
        f"/api/v1/surveys/{multi_survey.slug}/responses/",
        raw,
        content_type="application/json",
    )
    assert r.status_code < 500, r.content[:500]
    valid = (
        isinstance(answer, dict)
        and set(answer) == set(OPTIONS)
        and all(isinstance(answer[o], bool) for o in OPTIONS)
    )
    if valid:
        assert r.status_code == 201, r.content
        assert Submission.objects.count() == before + 1
        return
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    # NaN/Infinity literals are refused by the JSON parser before any field is read.
    named = (
        ("answers.drugs", "non_field_errors")
        if "Infinity" in raw or "NaN" in raw
        else ("answers.drugs",)
    )
    assert errors and all(k.startswith(named) for k in errors), errors
    assert Submission.objects.count() == before
