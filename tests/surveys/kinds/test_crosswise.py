"""The crosswise kind's data layer: definition, answer, tally cells, estimate, export cells."""

from __future__ import annotations

import pytest

from surveys.kinds import kind_of
from tests.surveys.kinds.support import clean_error, counts, definition, question, vector

DESIGN = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "born in Q1"}


def test_definition_is_a_yes_no_question_with_its_design() -> None:
    spec = definition(kind="yes_no", design=DESIGN)
    assert (spec.kind, spec.design["name"]) == ("yes_no", "crosswise")


def test_answer_is_same_or_different() -> None:
    q = question("yes_no", design=DESIGN)
    assert kind_of(q).name == "crosswise"
    assert kind_of(q).clean_answer(q, True) is True
    assert "boolean" in clean_error(q, "same")


def test_tally_vector_counts_same_as_yes() -> None:
    assert vector(question("yes_no", design=DESIGN), True) == {"yes": 1.0, "no": 0.0}


def test_estimate_inverts_the_crosswise_model() -> None:
    # P(same) = π·p + (1 − π)(1 − p) with p = ¼: 40 same of 100 → π = (0.4 − 0.75)/(0.5 − 1) = 0.7.
    q = question("yes_no", design=DESIGN)
    est = kind_of(q).estimate(q, counts(q, {"yes": 40, "no": 60}))
    assert est.estimate == pytest.approx(0.7)


def test_export_names_the_crosswise_model_and_says_its_assumption() -> None:
    q = question("yes_no", design=DESIGN)
    kind = kind_of(q)
    assert kind.export_cells("q", False) == {"q": 0}
    (column,) = kind.metadata_columns("q", {"kind": "yes_no", "text": "Q?", "design": DESIGN})
    assert 'model = "Crosswise"' in column["rrreg"]
    assert "p = 0.25" in column["rrreg"]
    assert kind.design_notes()["assumption"]
