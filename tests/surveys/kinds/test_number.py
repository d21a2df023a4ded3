"""The number kind's data layer: definition, answer, tally moments, estimate, export cells."""

from __future__ import annotations

import math

import pytest

from surveys.kinds import kind_of
from tests.surveys.kinds.support import (
    clean_error,
    counts,
    definition,
    definition_errors,
    question,
    vector,
)


def test_definition_needs_bounds_in_order() -> None:
    spec = definition(kind="number", min=0, max=10, integer=True)
    assert (spec.min_value, spec.max_value, spec.integer) == (0, 10, True)
    assert set(definition_errors(kind="number")) == {"min", "max"}
    assert "max" in definition_errors(kind="number", min=5, max=5)
    assert "integer" in definition_errors(kind="number", min=0.2, max=0.8, integer=True)
    assert "options" in definition_errors(kind="number", min=0, max=1, options=["a", "b"])


def test_answer_is_a_finite_number_within_the_bounds() -> None:
    q = question("number", min_value=0, max_value=10, integer=True)
    kind = kind_of(q)
    assert kind.clean_answer(q, 3) == 3.0
    assert "between" in clean_error(q, 11)
    assert "whole" in clean_error(q, 2.5)
    assert "finite" in clean_error(q, "3")
    assert "bounds" in clean_error(question("number"), 1)


def test_tally_vector_holds_count_sum_and_square() -> None:
    q = question("number", min_value=0, max_value=10)
    assert vector(q, 3) == {"": 1.0, "sum": 3.0, "sum_sq": 9.0}


def test_estimate_is_the_mean_with_its_standard_error() -> None:
    # Answers 1, 2, 3: mean 2, s² = (14 − 3·4)/2 = 1, SE = √(1/3).
    q = question("number", min_value=0, max_value=10)
    est = kind_of(q).estimate(q, counts(q, {"": 3}, n=3, total=6.0, total_sq=14.0))
    assert est.mean == pytest.approx(2.0)
    assert est.std_error == pytest.approx(math.sqrt(1 / 3))
    assert (est.min, est.max) == (0, 10)


def test_export_cells_are_numbers_with_the_bounds_in_the_metadata() -> None:
    q = question("number", min_value=0, max_value=10, integer=True)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q", "number")]
    assert kind.export_cells("q", 2.0) == {"q": 2.0}
    assert kind.export_entry(q, None) == {"min": 0, "max": 10, "integer": True}
