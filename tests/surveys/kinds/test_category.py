"""The category kind's data layer: definition, answer, tally cells, estimate, export cells."""

from __future__ import annotations

import pytest

from surveys.collection.tally_layout import submission_slices, tally_layout
from surveys.kinds import kind_of
from tests.surveys.kinds.support import (
    clean_error,
    counts,
    definition,
    definition_errors,
    question,
    vector,
)

OPTIONS = ["north", "south"]


def test_definition_is_direct_with_options() -> None:
    spec = definition(kind="category", options=OPTIONS)
    assert (spec.design, spec.options) == ({}, tuple(OPTIONS))
    assert "options" in definition_errors(kind="category")
    assert "design" in definition_errors(kind="category", options=OPTIONS, design={"name": "k_rr"})
    assert "ordered" in definition_errors(kind="category", options=OPTIONS, ordered=True)


def test_answer_is_one_of_the_options() -> None:
    q = question("category", options=OPTIONS)
    assert kind_of(q).clean_answer(q, "south") == "south"
    assert "options" in clean_error(q, "east")


def test_tally_vector_and_its_own_slice() -> None:
    q = question("category", options=OPTIONS)
    assert vector(q, "north") == {"north": 1.0, "south": 0.0}
    layout = tally_layout([q])
    assert submission_slices(layout, {"q": "south"}) == [("", ""), ("q", "south")]


def test_estimate_is_the_raw_share() -> None:
    q = question("category", options=OPTIONS)
    est = kind_of(q).estimate(q, counts(q, {"north": 3, "south": 1}))
    assert est.n == 4
    assert [(o.option, o.count) for o in est.options] == [("north", 3), ("south", 1)]
    assert [o.share for o in est.options] == pytest.approx([0.75, 0.25])
    assert est.epsilon is None and est.design is None


def test_export_cells_are_text() -> None:
    q = question("category", options=OPTIONS)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q", "text")]
    assert kind.export_cells("q", "north") == {"q": "north"}
    assert kind.export_entry(q, None) == {"options": OPTIONS}
