"""The exact sums a number release is computed from (surveys.analysis.exact_sums).

The sensitivity bound of a release holds only if the sum is exact and each respondent adds one
fixed clamped term: adding a respondent must move the sum by exactly that term, on both paths
(PostgreSQL's ``numeric`` aggregate and the Python sum of scaled doubles). Hostile stored values
— out of bounds, booleans, nulls, strings, a group that is not an option, the unpublished tail —
must be clamped or skipped exactly as the tallies do."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from django.db import connection

from surveys.analysis import exact_sums
from surveys.models import Submission
from testsupport.factories import make_user, survey_create

pytestmark = pytest.mark.django_db

ROWS: list[tuple[dict[str, Any], bool]] = [
    ({"x": 0.1, "y": 0.3, "g": "a"}, True),
    ({"x": 2.5, "y": 7.0, "g": "a"}, True),  # y above its bound: clamped to 1
    ({"x": -3.0, "y": -0.7, "g": "b"}, True),  # x below its bound: clamped to 0
    ({"x": 1e-300, "y": 1 / 3, "g": "b"}, True),
    ({"x": True, "y": None, "g": "a"}, True),  # a boolean and a null: not numbers
    ({"x": "4", "g": "b"}, True),  # a string: not a number
    ({"x": 9.75, "y": 0.5, "g": "c"}, True),  # not an option: in no group
    ({"x": 4.0, "y": 0.25}, True),  # no group answer: in the ungrouped sum only
    ({"x": 8.0, "y": 0.75, "g": "a"}, False),  # the unpublished tail: never counted
]
BOUNDS = {"x": (0.0, 10.0), "y": (-1.0, 1.0)}


def _survey() -> Any:
    return survey_create(
        owner=make_user("sums"),
        data={
            "title": "Sums",
            "questions": [
                {"key": "x", "text": "x", "kind": "number", "min": 0, "max": 10},
                {"key": "y", "text": "y", "kind": "number", "min": -1, "max": 1},
                {"key": "g", "text": "g", "kind": "category", "options": ["a", "b"]},
            ],
        },
    )


def _store(survey: Any, answers: dict[str, Any], sealed: bool = True) -> None:
    Submission.objects.create(
        id=uuid.uuid4(),
        survey=survey,
        randomizer="browser",
        submitted_on=datetime.date.today(),
        fingerprint="f" * 64,
        answers=answers,
        sealed=sealed,
    )


def _expected(rows: list[tuple[dict[str, Any], bool]], exact_of) -> dict[str, dict[str, Any]]:
    """Independent of the module: clamp each stored number with Fractions, per group."""
    out: dict[str, dict[str, list[Any]]] = {
        g: {k: [0, Fraction(0)] for k in BOUNDS} for g in ("", "a", "b")
    }
    for answers, sealed in rows:
        if not sealed:
            continue
        for group in ("", answers.get("g")):
            if group not in out:
                continue
            for key, (lo, hi) in BOUNDS.items():
                value = answers.get(key)
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                term = min(max(exact_of(value), Fraction(lo)), Fraction(hi))
                out[group][key][0] += 1
                out[group][key][1] += term
    return {g: {k: tuple(v) for k, v in by.items()} for g, by in out.items()}


def _both_paths(survey: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    questions = list(survey.questions.all())
    group_q = survey.questions.get(key="g")
    numbers = [q for q in questions if q.key in BOUNDS]
    results = []
    for path in (exact_sums._sums_in_sql, exact_sums._sums_in_python):
        plain = path(survey, BOUNDS, None, [""])
        grouped = path(survey, BOUNDS, group_q, ["a", "b"])
        results.append({"": plain[""], **grouped})
    assert numbers  # the public entry point reads the same questions
    public = exact_sums.number_sums_exact(survey=survey, questions=questions, group_by=None)
    assert public[""] == results[0 if connection.vendor == "postgresql" else 1][""]
    return results[0], results[1]


def test_both_paths_clamp_skip_and_sum_exactly() -> None:
    assert connection.vendor == "postgresql"
    survey = _survey()
    for answers, sealed in ROWS:
        _store(survey, answers, sealed)
    in_sql, in_python = _both_paths(survey)
    # PostgreSQL sums the decimals JSONB keeps (the shortest text of each double) ...
    assert in_sql == _expected(ROWS, lambda v: Fraction(Decimal(json.dumps(v))))
    # ... the Python path the doubles themselves; both exact, so they differ only where a
    # double is not its shortest decimal (0.1, 0.3, 1/3, 1e-300 here).
    assert in_python == _expected(ROWS, lambda v: Fraction(v))
    assert in_sql != in_python


def test_one_more_respondent_moves_each_sum_by_exactly_its_clamped_term() -> None:
    survey = _survey()
    for answers, sealed in ROWS:
        _store(survey, answers, sealed)
    before = _both_paths(survey)
    _store(survey, {"x": 11.5, "y": 0.1, "g": "b"})  # x clamps to 10
    after = _both_paths(survey)
    for (path_before, path_after), y_term in zip(
        zip(before, after, strict=True), (Fraction(1, 10), Fraction(0.1)), strict=True
    ):
        for group in ("", "b"):
            assert path_after[group]["x"] == (
                path_before[group]["x"][0] + 1,
                path_before[group]["x"][1] + 10,
            )
            assert path_after[group]["y"] == (
                path_before[group]["y"][0] + 1,
                path_before[group]["y"][1] + y_term,
            )
        assert path_after["a"] == path_before["a"]


def test_dyadic_answers_give_the_same_sums_on_both_paths() -> None:
    survey = _survey()
    rows = [({"x": 0.5 * i, "y": -1 + 0.125 * i, "g": "ab"[i % 2]}, True) for i in range(17)]
    for answers, sealed in rows:
        _store(survey, answers, sealed)
    in_sql, in_python = _both_paths(survey)
    assert in_sql == in_python == _expected(rows, lambda v: Fraction(v))
