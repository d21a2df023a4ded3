"""Forced response (Boruch 1971): answer truthfully with ``p_truth``, else "yes" with ``p_yes`` or
"no" with ``p_no``. ``c = p_truth``, ``d = p_yes``. Also the default (coin) design of yes/no
questions, and the device optimal at a given ε (Kairouz, Oh & Viswanath 2016)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._binary import SUM_TOLERANCE, BinaryDesign
from dpcore.local.designs._registry import (
    BINARY_AND_EACH_OPTION,
    BrowserHooks,
    DesignEntry,
    Outcome,
    Param,
    SimulationDraws,
    register,
)
from dpcore.local.grid import GRID, on_grid
from dpcore.validation import design_number as _number
from dpcore.validation import design_probability as _probability

__all__ = [
    "DEFAULT_YES_NO_SPEC",
    "ENTRY",
    "default_yes_no_spec",
    "forced_response",
    "optimal_forced_response",
    "realise_truth_yes",
]

NAME: Final = "forced_response"

#: The coin design: tell the truth with probability ½, else say "yes" (¼) or "no" (¼). ε = ln 3.
#: A plain dict (JSON-serialisable); do not mutate it — use :func:`default_yes_no_spec` for a copy.
DEFAULT_YES_NO_SPEC: Final[dict[str, Any]] = {
    "name": NAME,
    "p_truth": 0.5,
    "p_yes": 0.25,
    "p_no": 0.25,
}


def default_yes_no_spec() -> dict[str, Any]:
    """A fresh copy of :data:`DEFAULT_YES_NO_SPEC` (usable as a model field default)."""
    return dict(DEFAULT_YES_NO_SPEC)


def forced_response(p_truth: float, p_yes: float, p_no: float) -> BinaryDesign:
    """Forced response (Boruch 1971): answer truthfully with ``p_truth``, else say "yes" with
    ``p_yes`` or "no" with ``p_no`` (the three sum to 1). ``c = p_truth``, ``d = p_yes``.

    A zero ``p_yes`` or ``p_no`` (or ``p_truth = 1``, direct questioning) is one-sided: ε = ∞,
    ``is_private`` False.
    """
    q = _probability("p_truth", p_truth)
    f1 = _probability("p_yes", p_yes)
    f0 = _probability("p_no", p_no)
    total = q + f1 + f0
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise DesignError("p_no", f"p_truth + p_yes + p_no must sum to 1 (got {total:.12g})")
    if q <= 0.0:
        raise DesignError("p_truth", "must be > 0 (p_truth = 0: answers carry no information)")
    return BinaryDesign(NAME, q, f1, {"p_truth": q, "p_yes": f1, "p_no": f0})


def optimal_forced_response(epsilon: float) -> BinaryDesign:
    """The forced-response design that attains the Kairouz–Oh–Viswanath (2016) bound at ε:
    ``p_truth = (e^ε − 1)/(e^ε + 1)``, ``p_yes = p_no = 1/(e^ε + 1)`` (symmetric RR with keep
    probability e^ε/(1 + e^ε)). ε = ln 3 gives the coin design (½, ¼, ¼).
    """
    eps = _number("epsilon", epsilon)
    if eps <= 0.0:
        raise DesignError("epsilon", f"must be > 0 (got {eps!r})")
    f = math.exp(-eps) / (1.0 + math.exp(-eps))  # 1/(e^ε + 1) without overflow
    return forced_response(1.0 - 2.0 * f, f, f)


def realise_truth_yes(t: tuple[int, ...]) -> tuple[dict[str, int], Fraction, Fraction] | None:
    """Cumulative thresholds ``U < truth`` → the true answer, ``U < yes`` → "yes", else "no":
    ``P(yes | trait) = yes/2⁵³``, ``P(yes | no trait) = (yes − truth)/2⁵³``."""
    truth, yes = t
    if yes <= truth:
        return None
    return {"truth": truth, "yes": yes}, Fraction(yes, GRID), Fraction(yes - truth, GRID)


def _nominal(params: Mapping[str, float]) -> tuple[int, ...]:
    truth = on_grid("p_truth", params["p_truth"])
    yes = on_grid("p_yes", Fraction(params["p_truth"]) + Fraction(params["p_yes"]))
    if yes <= truth:
        raise DesignError("p_yes", "rounds to 0 on the 2⁻⁵³ grid the page draws on")
    return (truth, yes)


def _cap_field(params: Mapping[str, float]) -> str:
    return "p_yes" if params.get("p_yes", 0.0) <= params.get("p_no", 0.0) else "p_no"


def _build(spec: Mapping[str, Any], k: int | None) -> BinaryDesign:
    return forced_response(spec["p_truth"], spec["p_yes"], spec["p_no"])


def _simulate(spec: Mapping[str, Any], truth: bool, u: float, rng: SimulationDraws) -> bool:
    # First coin: tell the truth with p_truth; otherwise the forced answer, yes with p_yes.
    if u < spec["p_truth"]:
        return truth
    return bool(u < spec["p_truth"] + spec["p_yes"])


def _sectors(params: Mapping[str, float]) -> list[tuple[str, float]]:
    return [("truth", params["p_truth"]), ("yes", params["p_yes"]), ("no", params["p_no"])]


def _device(params: Mapping[str, Any]) -> list[tuple[Outcome, float | Fraction]]:
    return [("truth", params["p_truth"]), ("yes", params["p_yes"]), ("no", params["p_no"])]


def _r_call(key: str, term: str, spec: Mapping[str, Any]) -> str:
    return (
        f"rrreg({term} ~ 1, data = reports, p = {spec['p_truth']!r}, "
        f'p0 = {spec["p_no"]!r}, p1 = {spec["p_yes"]!r}, design = "forced-known")'
    )


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Forced response (the coin)",
        order=10,
        params=(
            Param(
                "p_truth", "probability", "P(answer truthfully)", "P(answer truthfully); default ½."
            ),
            Param("p_yes", "probability", "P(forced YES)", "P(forced yes); default ¼."),
            Param(
                "p_no",
                "probability",
                "P(forced NO)",
                "P(forced no); default ¼. The three sum to 1.",
            ),
        ),
        serves=BINARY_AND_EACH_OPTION,
        starting=DEFAULT_YES_NO_SPEC,
        build=_build,
        binary=True,
        page_module=True,
        p_no_given_trait=lambda params: float(params["p_no"]),
        browser=BrowserHooks(_nominal, realise_truth_yes, _sectors),
        cap_field=_cap_field,
        simulate=_simulate,
        device=_device,
        r_call=_r_call,
    )
)
