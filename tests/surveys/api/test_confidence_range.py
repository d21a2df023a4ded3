"""Every endpoint taking ``confidence`` answers 200 with computable intervals or a 400 naming
``confidence``, never a 500 (DESIGN §8.4; issue 21 item 14: ``0.9999999999999999`` made
``0.5 + c/2`` round to 1, z = ∞, a 500). The rule lives in dpcore.validation (CONFIDENCE_MIN,
CONFIDENCE_MAX) and surveys/analysis/confidence.py."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpcore.errors import ArgumentError
from dpcore.stats import z_value
from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN, check_confidence
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(survey):
    for i in range(30):
        submit(
            survey,
            full_answers(
                coin=i % 3 == 0,
                mirror=i % 2 == 0,
                party="abc"[i % 3],
                age=("young", "old")[i % 2],
                hours=float(i % 11),
            ),
        )
    return survey


def _urls(survey, confidence: str) -> list[str]:
    api = f"/api/v1/surveys/{survey.slug}"
    return [
        f"{api}/estimates/?confidence={confidence}",
        f"{api}/estimates/?confidence={confidence}&format=csv",
        f"{api}/estimates/?confidence={confidence}&group_by=age&compare=true",
        f"{api}/regression/?outcome=coin&predictors=age,hours&confidence={confidence}",
    ]


def _intervals(body: Any) -> list[tuple[Any, Any]]:
    """Every (ci_low, ci_high) pair anywhere in a JSON body."""
    found = []
    if isinstance(body, dict):
        if "ci_low" in body:
            found.append((body["ci_low"], body["ci_high"]))
        for value in body.values():
            found.extend(_intervals(value))
    elif isinstance(body, list):
        for value in body:
            found.extend(_intervals(value))
    return found


def _check(api, survey, confidence: float) -> None:
    text = repr(confidence)
    computable = CONFIDENCE_MIN <= confidence <= CONFIDENCE_MAX
    for url in _urls(survey, text):
        r = api.get(url)
        if not computable:
            assert r.status_code == 400, (url, r.status_code)
            assert "confidence" in r.json()["errors"], r.json()
            continue
        assert r.status_code == 200, (url, r.content[:300])
        if "format=csv" in url:
            continue
        pairs = _intervals(r.json())
        assert pairs, url
        for low, high in pairs:
            if low is None or high is None:
                continue
            assert math.isfinite(low) and math.isfinite(high) and low <= high, (url, low, high)
    preview = api.post(
        "/api/v1/designs/preview/",
        {
            "kind": "yes_no",
            "design": {"name": "warner", "p": 0.75},
            "confidence": confidence,
        },
        format="json",
    )
    if computable:
        assert preview.status_code == 200, preview.content[:300]
    else:
        assert preview.status_code == 400 and "confidence" in preview.json()["errors"]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(confidence=st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True))
@example(confidence=0.9999999999999999)  # the report: 0.5 + c/2 rounds to 1
@example(confidence=0.9999999999999998)  # 0.5 + c/2 = 1 − 2⁻⁵³: z finite, but beyond the rule
@example(confidence=CONFIDENCE_MAX)
@example(confidence=1e-17)  # 0.5 + c/2 rounds to 0.5: z = 0, a zero-width interval
@example(confidence=CONFIDENCE_MIN)
@example(confidence=0.95)
def test_any_confidence_is_an_answer_or_a_400_naming_it(api, answered, confidence):
    _check(api, answered, confidence)


def test_the_reported_value_is_a_400_naming_confidence(api, answered):
    for url in _urls(answered, "0.9999999999999999"):
        r = api.get(url)
        assert r.status_code == 400 and "confidence" in r.json()["errors"], url


@given(confidence=st.floats(min_value=CONFIDENCE_MIN, max_value=CONFIDENCE_MAX))
def test_z_is_finite_and_positive_wherever_the_rule_accepts(confidence):
    z = z_value(confidence)
    assert math.isfinite(z) and z > 0
    assert 0.5 < 0.5 + confidence / 2 < 1.0


@pytest.mark.parametrize("confidence", [0.9999999999999999, 1e-17, 1 - 1e-13, 5e-7])
def test_dpcore_refuses_a_confidence_without_an_interval(confidence):
    with pytest.raises(ArgumentError) as caught:
        check_confidence(confidence)
    assert caught.value.field == "confidence"
