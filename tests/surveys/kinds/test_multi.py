"""The multi kind's data layer: definition, answer, tally cells, estimate, export cells."""

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

OPTIONS = ["a", "b"]
DESIGN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}


def test_definition_shares_one_coin_design_and_refuses_the_others() -> None:
    assert definition(kind="multi", options=OPTIONS).design == DESIGN
    assert "options" in definition_errors(kind="multi")
    assert "designs" in definition_errors(kind="multi", options=OPTIONS, designs={"a": DESIGN})
    crosswise = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "x"}
    assert "design.name" in definition_errors(kind="multi", options=OPTIONS, design=crosswise)


def test_answer_reports_every_option() -> None:
    q = question("multi", options=OPTIONS, design=DESIGN)
    assert kind_of(q).clean_answer(q, {"a": True, "b": False}) == {"a": True, "b": False}
    assert "Missing" in clean_error(q, {"a": True})
    assert "Unknown" in clean_error(q, {"a": True, "b": False, "c": True})
    assert "boolean" in clean_error(q, {"a": 1, "b": False})
    assert "object" in clean_error(q, ["a"])


def test_tally_vector_counts_the_answer_and_each_yes() -> None:
    q = question("multi", options=OPTIONS, design=DESIGN)
    assert vector(q, {"a": False, "b": True}) == {"": 1.0, "a": 0.0, "b": 1.0}


def test_estimate_debiases_each_option_through_the_shared_design() -> None:
    # P(yes) = ½·π + ¼ per option: 60 and 25 yes of 100 → π = 0.7 and 0.
    q = question("multi", options=OPTIONS, design=DESIGN)
    est = kind_of(q).estimate(q, counts(q, {"": 100, "a": 60, "b": 25}))
    assert est.n == 100
    assert [o.estimate for o in est.options] == pytest.approx([0.7, 0.0])
    assert est.epsilon == pytest.approx(2 * est.epsilon_per_option)


def test_export_has_one_integer_column_per_option() -> None:
    q = question("multi", options=OPTIONS, design=DESIGN)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q.a", "integer"), ("q.b", "integer")]
    assert kind.export_cells("q", {"a": True, "b": False}) == {"q.a": 1, "q.b": 0}
    entry = {
        "kind": "multi",
        "text": "Q?",
        **kind.export_entry(q, None),
        "design": {**DESIGN, "applies_to": "each_option", "options": 2, "epsilon_per_option": 1.1},
    }
    columns = kind.metadata_columns("q", entry)
    assert [c["key"] for c in columns] == ["q.a", "q.b"]
    assert {c["kind"] for c in columns} == {"multi_option"}
    assert columns[0]["design"]["epsilon"] == 1.1
    assert "applies_to" not in columns[0]["design"]
