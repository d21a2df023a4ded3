"""The yes/no kind's data layer: definition, answer, tally cells, estimate, export cells."""

from __future__ import annotations

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

DESIGN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}


def test_definition_defaults_to_the_coin_design_and_refuses_options_and_bounds() -> None:
    spec = definition(kind="yes_no")
    assert spec.design == DESIGN
    assert "options" in definition_errors(kind="yes_no", options=["a", "b"])
    assert "ordered" in definition_errors(kind="yes_no", ordered=True)
    assert "integer" in definition_errors(kind="yes_no", integer=True)
    assert "show_if" in definition_errors(kind="yes_no", show_if={"key": "x", "in": ["a"]})
    assert "design.name" in definition_errors(kind="yes_no", design={"name": "k_rr"})


def test_answer_is_a_boolean_report() -> None:
    q = question("yes_no", design=DESIGN)
    assert kind_of(q).clean_answer(q, True) is True
    assert "boolean" in clean_error(q, "yes")
    assert "boolean" in clean_error(q, 1)


@pytest.mark.parametrize(("answer", "yes", "no"), [(True, 1.0, 0.0), (False, 0.0, 1.0)])
def test_tally_vector(answer: bool, yes: float, no: float) -> None:
    assert vector(question("yes_no", design=DESIGN), answer) == {"yes": yes, "no": no}


def test_estimate_debiases_the_reports() -> None:
    # P(yes) = ½·π + ¼: 60 yes of 100 → π = (0.6 − 0.25) / 0.5 = 0.7.
    q = question("yes_no", design=DESIGN)
    est = kind_of(q).estimate(q, counts(q, {"yes": 60, "no": 40}))
    assert (est.n, est.reported_yes) == (100, 60)
    assert est.estimate == pytest.approx(0.7)
    assert est.ci_low < 0.7 < est.ci_high


def test_export_cells_are_one_integer_column() -> None:
    q = question("yes_no", design=DESIGN)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q", "integer")]
    assert kind.export_cells("q", True) == {"q": 1}
    assert kind.export_cells("q", False) == {"q": 0}
    entry = {"kind": "yes_no", "text": "Q?", "design": {**DESIGN, "c": 0.5, "d": 0.25}}
    (column,) = kind.metadata_columns("q", entry)
    assert column["type"] == "integer"
    assert 'design = "forced-known"' in column["rrreg"]
