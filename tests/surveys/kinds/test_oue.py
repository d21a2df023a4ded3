"""The OUE kind's data layer (surveys/kinds/oue.py): selected by its design on a choice question,
its definition, answer (a bit per option), tally cells, estimate, export cells, release part and
no-JS protocol."""

from __future__ import annotations

import math

import pytest

from dpcore.central.release_parts import OptionsPart
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
DESIGN = {"name": "oue", "epsilon": math.log(3)}


def test_a_choice_question_with_the_oue_design_is_the_oue_kind() -> None:
    assert kind_of(question("choice", options=OPTIONS, design=DESIGN)).name == "oue"
    assert kind_of(question("choice", options=OPTIONS, design=None)).name == "choice"
    spec = definition(kind="choice", options=OPTIONS, design=DESIGN)
    assert spec.design == DESIGN
    assert "options" in definition_errors(kind="choice", design=DESIGN)
    assert "design.epsilon" in definition_errors(
        kind="choice", options=OPTIONS, design={"name": "oue", "epsilon": 12}
    )


def test_answer_is_a_bit_per_option() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    answer = {"a": False, "b": True, "c": True}  # several bits may be set, the truth's may not
    assert kind_of(q).clean_answer(q, answer) == answer
    assert "object" in clean_error(q, "a")
    assert "'c'" in clean_error(q, {"a": True, "b": False})
    assert "boolean" in clean_error(q, {"a": True, "b": False, "c": "yes"})


def test_tally_vector_counts_the_respondent_and_each_set_bit() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    assert vector(q, {"a": True, "b": False, "c": True}) == {"": 1.0, "a": 1.0, "b": 0.0, "c": 1.0}


def test_estimate_debiases_each_bit_count() -> None:
    # p = ½, q = ¼: (C/n − ¼)/(½ − ¼); C = 50, 30, 25 of n = 100 → 1.0, 0.2, 0.0.
    q = question("choice", options=OPTIONS, design=DESIGN)
    est = kind_of(q).estimate(q, counts(q, {"": 100, "a": 50, "b": 30, "c": 25}))
    assert est.n == 100
    assert [o.estimate_unclipped for o in est.options] == pytest.approx([1.0, 0.2, 0.0])
    assert [o.reported for o in est.options] == [50, 30, 25]
    assert sum(o.estimate for o in est.options) == pytest.approx(1.0)


def test_export_release_and_protocol() -> None:
    q = question("choice", options=OPTIONS, design=DESIGN)
    kind = kind_of(q)
    assert kind.export_columns(q) == [("q.a", "integer"), ("q.b", "integer"), ("q.c", "integer")]
    assert kind.export_cells("q", {"a": True, "b": False, "c": True}) == {
        "q.a": 1,
        "q.b": 0,
        "q.c": 1,
    }
    part = kind.release_part(q)
    assert isinstance(part, OptionsPart)
    assert (part.c, part.d) == pytest.approx((0.25, 0.25))
    # One contribution of Δ = 1 per option: a respondent's report moves every option's bit.
    assert [c.sensitivity for c in part.contributions] == [1, 1, 1]
    protocol = kind.physical_protocol(q)
    assert protocol.possible and "Flip a coin twice." in " ".join(protocol.steps)
    irrational = question("choice", options=OPTIONS, design={"name": "oue", "epsilon": 1.0})
    assert not kind_of(irrational).physical_protocol(irrational).possible


def test_words_in_english_and_spanish() -> None:
    from django.utils import translation

    q = question("choice", options=OPTIONS, design=DESIGN)
    kind = kind_of(q)
    with translation.override("en"):
        words = kind.protection(q, {})
        assert words["randomizer"]["button"] == "Draw the boxes"
        assert "Your true answer: flip a coin." in " ".join(kind.physical_protocol(q).steps)
    with translation.override("es"):
        words = kind.protection(q, {})
        assert words["randomizer"]["button"] == "Sortear las casillas"
        assert "Sean cuales sean las casillas registradas" in words["reports"]["any"]["text"]
        steps = " ".join(kind.physical_protocol(q).steps)
        assert "Tu respuesta verdadera: lanza una moneda." in steps
        assert "Lanza una moneda dos veces." in steps
        irrational = question("choice", options=OPTIONS, design={"name": "oue", "epsilon": 1.0})
        reason = kind_of(irrational).physical_protocol(irrational).reason
        assert "necesita JavaScript" in reason


def test_an_oue_question_cannot_be_ordered() -> None:
    # The mean score needs the covariance of a respondent's bits: not offered for OUE.
    errors = definition_errors(kind="choice", options=OPTIONS, design=DESIGN, ordered=True)
    assert "ordered" in errors
