"""Hostile inputs (contracts in tests/fuzz/hostile.py): submission_create and POST …/responses/
answer a bad submission naming the field, and store nothing."""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from deniable.errors import Conflict, InvalidInput, NotFound
from surveys.models import Submission, Survey, Tally
from tests.fuzz.hostile import (
    CALL_SECONDS,
    DB,
    HUGE,
    VALID_ANSWERS,
    hostile,
    junk_json,
    time_limit,
)
from testsupport import factories


def _stored() -> tuple[int, int, dict[tuple[str, str], list[float]]]:
    """Submission rows, tally rows, and each slice's counter vector summed over its shards."""
    shards: dict[tuple[str, str], list[list[float]]] = {}
    for group_key, group_value, sums in Tally.objects.values_list(
        "group_key", "group_value", "sums"
    ):
        shards.setdefault((group_key, group_value), []).append(sums)
    totals = {  # math.fsum: exact whatever the row order
        group: [math.fsum(column) for column in zip(*vectors, strict=True)]
        for group, vectors in shards.items()
    }
    return Submission.objects.count(), Tally.objects.count(), totals


@st.composite
def submissions(draw: st.DrawFn) -> dict[str, Any]:
    """A submission body whose fields (and answers) are each valid or hostile."""
    answers = draw(
        st.one_of(
            st.fixed_dictionaries(
                {k: st.one_of(st.just(v), hostile) for k, v in VALID_ANSWERS.items()},
                optional={"nope": hostile, "x" * 300: hostile},
            ),
            hostile,
        ),
        label="answers",
    )
    return {
        "submission_id": draw(st.one_of(st.builds(lambda: str(uuid.uuid4())), hostile)),
        "randomizer": draw(st.one_of(st.just("browser"), hostile)),
        "answers": answers,
        "token": draw(st.one_of(st.none(), hostile)),
    }


@DB
@given(body=submissions())
def test_submission_service_hostile(open_survey: Survey, body: dict[str, Any]) -> None:
    before = _stored()
    try:
        with time_limit(CALL_SECONDS):
            outcome = factories.submission_create(survey=open_survey, **body)
    except InvalidInput as exc:
        assert exc.errors and all(field and messages for field, messages in exc.errors.items())
        assert all(isinstance(m, str) and m for ms in exc.errors.values() for m in ms)
        assert _stored() == before, "a rejected submission left rows behind"
        return
    except (Conflict, NotFound) as exc:
        assert _stored() == before
        assert exc.detail
        return
    assert outcome.status in ("accepted", "duplicate")


def _post_json(client: APIClient, url: str, body: Any) -> Any:
    # allow_nan: send the NaN/Infinity literals a hostile client can send.
    raw = json.dumps(body, allow_nan=True, default=repr)
    return client.generic("POST", url, raw, content_type="application/json")


@DB
@given(body=st.one_of(submissions(), junk_json))
def test_submission_api_hostile(open_survey: Survey, body: Any) -> None:
    cache.clear()  # the per-survey rate limit is not what this test is about
    before = _stored()
    response = _post_json(APIClient(), f"/api/v1/surveys/{open_survey.slug}/responses/", body)
    assert response.status_code < 500, response.content[:500]
    if response.status_code in (200, 201):
        return
    assert 400 <= response.status_code < 500
    payload = response.json()
    if response.status_code == 400:
        assert payload["errors"], payload
        for field, messages in payload["errors"].items():
            assert field and messages and all(isinstance(m, str) for m in messages), payload
    else:
        assert payload["error"] and payload["detail"], payload
    assert _stored() == before, "a rejected submission left rows behind"


def test_submission_huge_number_is_a_field_error(open_survey: Survey) -> None:
    """Regression: 10**400 as a number answer raised OverflowError in math.isfinite (a 500)."""
    with pytest.raises(InvalidInput) as caught:
        factories.submission_create(
            survey=open_survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={**VALID_ANSWERS, "hours": HUGE},
        )
    assert "answers.hours" in caught.value.errors
    response = APIClient().generic(
        "POST",
        f"/api/v1/surveys/{open_survey.slug}/responses/",
        json.dumps(
            {
                "submission_id": str(uuid.uuid4()),
                "randomizer": "browser",
                "answers": {"coin": True, "party": "a", "region": "south", "hours": 0},
            }
        ).replace('"hours": 0', '"hours": ' + "9" * 400),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "answers.hours" in response.json()["errors"]
