"""The choice kind's data layer: definition, answer, tally cells, estimate, export cells."""

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

OPTIONS = ["a", "b", "c"]
DESIGN = {"name": "k_rr", "epsilon": math.log(3)}


def test_definition_needs_options_and_takes_a_k_rr_design_over_them() -> None:
    spec = definition(kind="choice", options=OPTIONS, ordered=True)
    assert spec.design == DESIGN
    assert spec.ordered is True
    assert "options" in definition_errors(kind="choice")
    assert "integer" in definition_errors(kind="choice", options=OPTIONS, integer=True)
    warner = {"name": "warner", "p": 0.75}
    assert "design.name" in definition_errors(kind="choice", options=OPTIONS, design=warner)


def test_answer_is_one_of_the_options() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    assert kind_of(q).clean_answer(q, "b") == "b"
    assert "options" in clean_error(q, "d")
    assert "options" in clean_error(q, True)


def test_tally_vector_has_one_slot_per_option() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    assert vector(q, "c") == {"a": 0.0, "b": 0.0, "c": 1.0}


def test_estimate_debiases_each_option_and_scores_an_ordered_question() -> None:
    # k-RR with ε = ln 3, k = 3: keep = e^ε/(e^ε + k − 1) = 3/5, other = 1/5; reported shares
    # 0.5, 0.3, 0.2 → π_j = (λ_j − 1/5) / (3/5 − 1/5): 0.75, 0.25, 0.
    q = question("choice", options=OPTIONS, design=DESIGN, ordered=True)
    est = kind_of(q).estimate(q, counts(q, {"a": 50, "b": 30, "c": 20}))
    assert est.n == 100
    assert [o.option for o in est.options] == OPTIONS
    assert [o.estimate for o in est.options] == pytest.approx([0.75, 0.25, 0.0])
    assert est.mean_score is not None
    assert est.mean_score.estimate == pytest.approx(1 * 0.75 + 2 * 0.25)


def test_export_cells_are_the_option_text_with_the_options_in_the_metadata() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q", "text")]
    assert kind.export_cells("q", "b") == {"q": "b"}
    assert kind.export_entry(q, None) == {"options": OPTIONS}
    (column,) = kind.metadata_columns("q", {"kind": "choice", "text": "Q?", "design": DESIGN})
    assert column["type"] == "text"
    assert "rrreg" not in column  # no R package call for k-RR
