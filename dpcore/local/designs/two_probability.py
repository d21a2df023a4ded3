"""Any device with ``P(yes | trait) = a`` and ``P(yes | no trait) = b`` (Kuk 1990: two card
decks). ``c = a − b``, ``d = b``; the page runs it as forced response."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._binary import BinaryDesign
from dpcore.local.designs._registry import (
    BINARY_AND_EACH_OPTION,
    BrowserHooks,
    DesignEntry,
    Outcome,
    Param,
    SimulationDraws,
    register,
)
from dpcore.local.designs.forced_response import realise_truth_yes
from dpcore.local.grid import on_grid
from dpcore.validation import design_probability as _probability

__all__ = ["ENTRY", "two_probability"]

NAME: Final = "two_probability"


def two_probability(p_yes_if_trait: float, p_yes_if_not: float) -> BinaryDesign:
    """Any device with ``P(yes | trait) = a`` and ``P(yes | no trait) = b`` (Kuk 1990: two card
    decks with those shares of red cards). ``c = a − b``, ``d = b``; local ε =
    ``max{|ln(a/b)|, |ln((1 − b)/(1 − a))|}``. Needs ``a > b`` (else swap the statement).
    """
    a = _probability("p_yes_if_trait", p_yes_if_trait)
    b = _probability("p_yes_if_not", p_yes_if_not)
    if not a > b:
        raise DesignError(
            "p_yes_if_not",
            f"P(yes | no trait) = {b!r} must be below P(yes | trait) = {a!r} (equal: the answers "
            "carry no information; above: state the sensitive statement the other way round)",
        )
    return BinaryDesign(NAME, a - b, b, {"p_yes_if_trait": a, "p_yes_if_not": b})


def _nominal(params: Mapping[str, float]) -> tuple[int, ...]:
    """As forced response with ``truth = T(a) − T(b)`` and ``yes = T(a)``: the same report
    distribution given the true answer."""
    yes = on_grid("p_yes_if_trait", params["p_yes_if_trait"])
    truth = yes - on_grid("p_yes_if_not", params["p_yes_if_not"])
    if truth <= 0:
        raise DesignError("p_yes_if_not", "equals P(yes | trait) on the 2⁻⁵³ grid")
    return (truth, yes)


def _cap_field(params: Mapping[str, float]) -> str:
    a, b = params.get("p_yes_if_trait", 1.0), params.get("p_yes_if_not", 0.0)
    return "p_yes_if_not" if b <= 1.0 - a else "p_yes_if_trait"


def _build(spec: Mapping[str, Any], k: int | None) -> BinaryDesign:
    return two_probability(spec["p_yes_if_trait"], spec["p_yes_if_not"])


def _simulate(spec: Mapping[str, Any], truth: bool, u: float, rng: SimulationDraws) -> bool:
    # Any device with P(yes | trait) = a and P(yes | no trait) = b.
    return bool(u < (spec["p_yes_if_trait"] if truth else spec["p_yes_if_not"]))


def _sectors(params: Mapping[str, float]) -> list[tuple[str, float]]:
    # The page runs it as forced response (truth a − b, YES b, NO 1 − a), the same chances of
    # each report given the true answer.
    a, b = params["p_yes_if_trait"], params["p_yes_if_not"]
    return [("truth", a - b), ("yes", b), ("no", 1.0 - a)]


def _device(params: Mapping[str, Any]) -> list[tuple[Outcome, float | Fraction]]:
    # Forced response with truth a − b, YES b, NO 1 − a: the same P(yes | trait) = a and
    # P(yes | no trait) = b (exact fractions: a − b in floats could be off by an ulp).
    a, b = Fraction(params["p_yes_if_trait"]), Fraction(params["p_yes_if_not"])
    return [("truth", a - b), ("yes", b), ("no", 1 - a)]


def _r_call(key: str, term: str, spec: Mapping[str, Any]) -> str:
    # R's RRreg package (Heck & Moshagen) covers the designs the rr package does not.
    return (
        f'RRreg::RRuni(response = {term}, data = reports, model = "Kuk", '
        f"p = c({spec['p_yes_if_trait']!r}, {spec['p_yes_if_not']!r}))"
    )


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Two probabilities (any device, e.g. Kuk's two card decks)",
        order=40,
        params=(
            Param(
                "p_yes_if_trait", "probability", "P(YES | trait)", "P(yes | trait) = a; above b."
            ),
            Param(
                "p_yes_if_not",
                "probability",
                "P(YES | no trait)",
                "P(yes | no trait) = b; below a.",
            ),
        ),
        serves=BINARY_AND_EACH_OPTION,
        # P(yes | trait) = ¾, P(yes | no trait) = ¼: ε = ln 3; a coin flipped twice realises it.
        starting={"name": NAME, "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
        build=_build,
        binary=True,
        page_module=True,
        p_no_given_trait=lambda q: 1.0 - float(q["p_yes_if_trait"]),
        browser=BrowserHooks(_nominal, realise_truth_yes, _sectors),
        cap_field=_cap_field,
        simulate=_simulate,
        device=_device,
        r_call=_r_call,
    )
)
