"""The cheating-detection kind's data layer: definition, answer, tally cells, estimate, export."""

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

DESIGN = {
    "name": "cheater_detection",
    "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
}


def test_definition_is_a_yes_no_question_with_its_design() -> None:
    spec = definition(kind="yes_no", design=DESIGN)
    assert (spec.kind, spec.design["name"]) == ("yes_no", "cheater_detection")
    assert "design.name" in definition_errors(kind="multi", options=["a", "b"], design=DESIGN)


def test_answer_is_the_group_and_the_report() -> None:
    q = question("yes_no", design=DESIGN)
    assert kind_of(q).name == "cheater_detection"
    assert kind_of(q).clean_answer(q, {"group": 2, "report": False}) == {
        "group": 2,
        "report": False,
    }
    for refused in (True, {"group": 3, "report": True}, {"group": True, "report": True}, {}):
        assert "group" in clean_error(q, refused)


def test_tally_vector_has_one_slot_per_group_and_report() -> None:
    q = question("yes_no", design=DESIGN)
    assert vector(q, {"group": 2, "report": True}) == {
        "g1_yes": 0.0,
        "g1_no": 0.0,
        "g2_yes": 1.0,
        "g2_no": 0.0,
    }


def test_estimate_solves_the_two_groups() -> None:
    # Group i: P(yes) = π(1 − p_no_i) + β·p_yes_i. With π = 0.4, β = 0.2 (γ = 0.4):
    # group 1 → 0.4·0.75 + 0.2·0.25 = 0.35; group 2 → 0.4·0.75 + 0.2·0.5 = 0.4.
    q = question("yes_no", design=DESIGN)
    est = kind_of(q).estimate(
        q, counts(q, {"g1_yes": 350, "g1_no": 650, "g2_yes": 400, "g2_no": 600})
    )
    assert (est.n, est.reported_yes) == (2000, 750)
    assert est.honest_yes["estimate"] == pytest.approx(0.4)
    assert est.honest_no["estimate"] == pytest.approx(0.2)
    assert est.cheaters["estimate"] == pytest.approx(0.4)
    assert [g["n"] for g in est.groups] == [1000, 1000]


def test_export_adds_the_group_column() -> None:
    q = question("yes_no", design=DESIGN)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q", "integer"), ("q.group", "integer")]
    assert kind.export_cells("q", {"group": 2, "report": True}) == {"q": 1, "q.group": 2}
    column, group = kind.metadata_columns("q", {"kind": "yes_no", "text": "Q?", "design": DESIGN})
    assert column["rrreg_parameter_order_verified"] is True
    assert 'model = "CDMsym"' in column["rrreg"]
    assert group["key"] == "q.group"
