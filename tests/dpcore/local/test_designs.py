"""Designs: worked numbers from docs/formulas.md#local, local ε, specs and validation errors."""

from __future__ import annotations

import math
import pickle

import pytest

from dpcore.local import (
    DEFAULT_YES_NO_SPEC,
    BinaryDesign,
    DesignError,
    KRRDesign,
    default_yes_no_spec,
    design_from_spec,
    forced_response,
    k_rr,
    optimal_forced_response,
    unrelated_question,
    warner,
)

COIN = forced_response(0.5, 0.25, 0.25)


def test_coin_design_numbers() -> None:
    assert (COIN.name, COIN.c, COIN.d) == ("forced_response", 0.5, 0.25)
    assert COIN.p_yes_given_trait == 0.75
    assert COIN.p_yes_given_no_trait == 0.25
    assert COIN.epsilon == pytest.approx(math.log(3), abs=1e-15)
    assert COIN.epsilon == pytest.approx(1.0986, abs=1e-4)
    assert COIN.is_private
    assert COIN.to_spec() == DEFAULT_YES_NO_SPEC


def test_default_spec_is_the_coin_and_copies_are_fresh() -> None:
    assert design_from_spec(DEFAULT_YES_NO_SPEC) == COIN
    copy = default_yes_no_spec()
    copy["p_truth"] = 0.9
    assert DEFAULT_YES_NO_SPEC["p_truth"] == 0.5


def test_warner_worked_numbers() -> None:
    # p = 0.7: λ = 0.7π + 0.3(1 − π) = 0.4π + 0.3; ε = ln(0.7/0.3) = ln(7/3).
    design = warner(0.7)
    assert design.c == pytest.approx(0.4)
    assert design.d == pytest.approx(0.3)
    assert design.epsilon == pytest.approx(math.log(7 / 3))
    assert design.to_spec() == {"name": "warner", "p": 0.7}


def test_unrelated_question_worked_numbers() -> None:
    # p = 0.5, u = 0.2: P(yes|trait) = 0.5 + 0.5·0.2 = 0.6, P(yes|no) = 0.1;
    # ε = max{ln(0.6/0.1), ln(0.9/0.4)} = ln 6.
    design = unrelated_question(0.5, 0.2)
    assert (design.c, design.d) == pytest.approx((0.5, 0.1))
    assert design.p_yes_given_trait == pytest.approx(0.6)
    assert design.epsilon == pytest.approx(math.log(6))
    assert design.to_spec() == {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.2}


def test_forced_response_asymmetric_epsilon() -> None:
    # q = 0.6, f1 = 0.1, f0 = 0.3: ln(0.7/0.1) = ln 7 beats ln(0.9/0.3) = ln 3.
    design = forced_response(0.6, 0.1, 0.3)
    assert design.epsilon == pytest.approx(math.log(7))


@pytest.mark.parametrize(
    "design",
    [
        forced_response(0.5, 0.5, 0.0),
        forced_response(0.5, 0.0, 0.5),
        forced_response(1.0, 0.0, 0.0),  # direct questioning
        warner(1.0),
        unrelated_question(0.5, 0.0),
        unrelated_question(0.3, 1.0),  # c + d = 0.3 + 0.7·1 = 1
        unrelated_question(1.0, 0.4),
    ],
)
def test_one_sided_designs_are_flagged_not_private(design: BinaryDesign) -> None:
    assert design.epsilon == math.inf
    assert not design.is_private


def test_optimal_forced_response_for_ln3_is_the_coin() -> None:
    design = optimal_forced_response(math.log(3))
    assert design.c == pytest.approx(0.5, abs=1e-15)
    assert design.d == pytest.approx(0.25, abs=1e-15)
    assert design.params["p_no"] == pytest.approx(0.25, abs=1e-15)
    assert design.epsilon == pytest.approx(math.log(3), abs=1e-12)


def test_optimal_forced_response_for_ln19() -> None:
    # q = (19 − 1)/(19 + 1) = 0.9, f = 1/20 = 0.05.
    design = optimal_forced_response(math.log(19))
    assert (design.c, design.d, design.params["p_no"]) == pytest.approx((0.9, 0.05, 0.05))
    assert design.epsilon == pytest.approx(math.log(19))


def test_optimal_forced_response_large_epsilon_does_not_overflow() -> None:
    design = optimal_forced_response(800.0)
    assert design.c == 1.0
    assert not design.is_private  # p_yes underflows to 0: one-sided in floating point


def test_krr_probabilities() -> None:
    design = k_rr(4, math.log(3))
    # p = 3/(3 + 3) = ½, q = 1/6; p/q = e^ε.
    assert design.keep_probability == pytest.approx(0.5)
    assert design.other_probability == pytest.approx(1 / 6)
    assert design.keep_probability + 3 * design.other_probability == pytest.approx(1.0)
    assert design.keep_probability / design.other_probability == pytest.approx(3.0)
    assert (design.c, design.d) == pytest.approx((1 / 3, 1 / 6))
    assert design.to_spec() == {"name": "k_rr", "epsilon": math.log(3)}
    assert design.is_private


def test_spec_round_trips() -> None:
    for design in (
        COIN,
        warner(0.8),
        unrelated_question(0.7, 0.25),
        forced_response(0.6, 0.1, 0.3),
    ):
        assert design_from_spec(design.to_spec()) == design
    krr = k_rr(5, 1.5)
    assert design_from_spec(krr.to_spec(), k=5) == krr
    assert design_from_spec({"name": "k_rr", "epsilon": 1.5, "k": 5}) == krr
    assert design_from_spec({"name": "k_rr", "epsilon": 1.5, "k": 5}, k=5) == krr


def test_spec_accepts_ints_and_ignores_k_for_binary_designs() -> None:
    design = design_from_spec({"name": "forced_response", "p_truth": 1, "p_yes": 0, "p_no": 0}, k=2)
    assert isinstance(design, BinaryDesign)
    assert design.c == 1.0


def test_designs_are_frozen_and_hashable() -> None:
    with pytest.raises(AttributeError):
        COIN.c = 0.9  # type: ignore[misc]
    assert hash(COIN) == hash(forced_response(0.5, 0.25, 0.25))
    assert {k_rr(3, 1.0), k_rr(3, 1.0)} == {KRRDesign(3, 1.0)}


# --- validation ----------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("build", "field", "fragment"),
    [
        (lambda: forced_response(1.1, 0.0, 0.0), "p_truth", "between 0 and 1"),
        (lambda: forced_response(-0.1, 0.6, 0.5), "p_truth", "between 0 and 1"),
        (lambda: forced_response(0.5, -0.25, 0.75), "p_yes", "between 0 and 1"),
        (lambda: forced_response(0.5, 0.25, 1.25), "p_no", "between 0 and 1"),
        (lambda: forced_response(0.5, 0.3, 0.3), "p_no", "sum to 1"),
        (lambda: forced_response(0.5, 0.25, 0.2), "p_no", "sum to 1"),
        (lambda: forced_response(0.0, 0.5, 0.5), "p_truth", "> 0"),
        (lambda: forced_response(0.5, NAN, 0.25), "p_yes", "finite"),
        (lambda: forced_response(INF, 0.25, 0.25), "p_truth", "finite"),
        (lambda: forced_response("0.5", 0.25, 0.25), "p_truth", "number"),
        (lambda: forced_response(True, 0.0, 0.0), "p_truth", "number"),
        (lambda: warner(0.5), "p", "use p > 0.5"),
        (lambda: warner(0.3), "p", "use p > 0.5"),
        (lambda: warner(1.2), "p", "between 0 and 1"),
        (lambda: warner(NAN), "p", "finite"),
        (lambda: unrelated_question(0.0, 0.3), "p", "> 0"),
        (lambda: unrelated_question(0.5, 1.5), "innocuous_prevalence", "between 0 and 1"),
        (lambda: unrelated_question(0.5, NAN), "innocuous_prevalence", "finite"),
        (lambda: unrelated_question(-1, 0.5), "p", "between 0 and 1"),
        (lambda: k_rr(1, 1.0), "k", "at least 2"),
        (lambda: k_rr(2.5, 1.0), "k", "integer"),  # type: ignore[arg-type]
        (lambda: k_rr(True, 1.0), "k", "integer"),
        (lambda: k_rr(3, 0.0), "epsilon", "> 0"),
        (lambda: k_rr(3, -1.0), "epsilon", "> 0"),
        (lambda: k_rr(3, INF), "epsilon", "finite"),
        (lambda: k_rr(3, NAN), "epsilon", "finite"),
        (lambda: optimal_forced_response(0.0), "epsilon", "> 0"),
        (lambda: optimal_forced_response(INF), "epsilon", "finite"),
        (lambda: BinaryDesign("coin", 0.5, 0.25), "name", "unknown"),
        (lambda: BinaryDesign("warner", 0.0, 0.5), "c", "> 0"),
        (lambda: BinaryDesign("warner", -0.2, 0.5), "c", "> 0"),
        (lambda: BinaryDesign("warner", 0.5, -0.1), "d", "≥ 0"),
        (lambda: BinaryDesign("warner", 0.7, 0.5), "d", "≤ 1"),
    ],
)
def test_invalid_designs_name_the_field(build, field: str, fragment: str) -> None:
    with pytest.raises(DesignError) as caught:
        build()
    assert caught.value.field == field
    assert fragment in caught.value.message
    assert str(caught.value).startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("spec", "k", "field"),
    [
        ({}, None, "name"),
        ({"name": None}, None, "name"),
        ({"name": "coin"}, None, "name"),
        ({"name": ["warner"]}, None, "name"),
        ({"name": "warner"}, None, "p"),
        ({"name": "warner", "p": "0.7"}, None, "p"),
        ({"name": "warner", "p": None}, None, "p"),
        ({"name": "warner", "p": True}, None, "p"),
        ({"name": "warner", "p": NAN}, None, "p"),
        ({"name": "warner", "p": INF}, None, "p"),
        ({"name": "warner", "p": 0.4}, None, "p"),
        ({"name": "warner", "p": 0.7, "q": 0.1}, None, "q"),
        ({"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25}, None, "p_no"),
        ({"name": "forced_response", "p_truth": 0.5, "p_yes": 0.5, "p_no": 0.5}, None, "p_no"),
        ({"name": "unrelated_question", "p": 0.5}, None, "innocuous_prevalence"),
        ({"name": "k_rr", "epsilon": 1.0}, None, "k"),
        ({"name": "k_rr", "epsilon": 1.0, "k": 3}, 4, "k"),
        ({"name": "k_rr", "epsilon": 1.0}, 1, "k"),
        ({"name": "k_rr", "epsilon": "big"}, 3, "epsilon"),
        ({"name": "k_rr", "epsilon": INF}, 3, "epsilon"),
        ({"name": "k_rr"}, 3, "epsilon"),
        ("forced_response", None, "spec"),
    ],
)
def test_invalid_specs_name_the_field(spec, k: int | None, field: str) -> None:
    with pytest.raises(DesignError) as caught:
        design_from_spec(spec, k=k)
    assert caught.value.field == field


def test_design_error_is_a_readable_picklable_value_error() -> None:
    error = DesignError("p_truth", "must be > 0")
    assert isinstance(error, ValueError)
    assert str(error) == "p_truth: must be > 0"
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.field, clone.message, str(clone)) == (error.field, error.message, str(error))
