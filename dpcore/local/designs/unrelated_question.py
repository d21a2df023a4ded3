"""Unrelated question (Greenberg et al. 1969) with a known innocuous prevalence u: with
probability p answer the sensitive question, else the innocuous one, whose answer the page draws
(yes with u). ``c = p``, ``d = (1 − p)·u``."""

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
from dpcore.local.grid import GRID, on_grid
from dpcore.validation import design_probability as _probability

__all__ = ["ENTRY", "unrelated_question"]

NAME: Final = "unrelated_question"


def unrelated_question(p: float, innocuous_prevalence: float) -> BinaryDesign:
    """Unrelated question (Greenberg et al. 1969): with probability p answer the sensitive
    question, else an innocuous one with known prevalence u. ``c = p``, ``d = (1 − p)·u``.
    """
    x = _probability("p", p)
    u = _probability("innocuous_prevalence", innocuous_prevalence)
    if x == 0.0:
        raise DesignError("p", "p = 0 means the sensitive question is never answered; use p > 0")
    return BinaryDesign(NAME, x, (1.0 - x) * u, {"p": x, "innocuous_prevalence": u})


def _realise(t: tuple[int, ...]) -> tuple[dict[str, int], Fraction, Fraction] | None:
    """Two independent draws: ``U₁ < sensitive`` → the true answer, else ``U₂ < innocuous_yes``
    → "yes"."""
    p, u = Fraction(t[0], GRID), Fraction(t[1], GRID)
    return {"sensitive": t[0], "innocuous_yes": t[1]}, p + (1 - p) * u, (1 - p) * u


def _nominal(params: Mapping[str, float]) -> tuple[int, ...]:
    return (
        on_grid("p", params["p"]),
        on_grid("innocuous_prevalence", params["innocuous_prevalence"]),
    )


def _cap_field(params: Mapping[str, float]) -> str:
    u = params.get("innocuous_prevalence", 0.5)
    return "innocuous_prevalence" if min(u, 1 - u) < 1 - params.get("p", 0.0) else "p"


def _build(spec: Mapping[str, Any], k: int | None) -> BinaryDesign:
    return unrelated_question(spec["p"], spec["innocuous_prevalence"])


def _simulate(spec: Mapping[str, Any], truth: bool, u: float, rng: SimulationDraws) -> bool:
    # Answer the sensitive question with probability p, else the innocuous one.
    if u < spec["p"]:
        return truth
    return bool(rng.random() < spec["innocuous_prevalence"])


def _sectors(params: Mapping[str, float]) -> list[tuple[str, float]]:
    # The page's draw says "innocuous"; the spinner shows that answer's two slices.
    p, u = params["p"], params["innocuous_prevalence"]
    return [("truth", p), ("innocuous-yes", (1 - p) * u), ("innocuous-no", (1 - p) * (1 - u))]


def _device(params: Mapping[str, Any]) -> list[tuple[Outcome, float | Fraction]]:
    p, u = params["p"], params["innocuous_prevalence"]
    # The innocuous answer drawn from the same device is exactly the browser's simulation of it.
    return [("truth", p), ("yes", (1.0 - p) * u), ("no", (1.0 - p) * (1.0 - u))]


def _r_call(key: str, term: str, spec: Mapping[str, Any]) -> str:
    return (
        f"rrreg({term} ~ 1, data = reports, p = {spec['p']!r}, "
        f'q = {spec["innocuous_prevalence"]!r}, design = "unrelated-known")'
    )


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Unrelated question",
        order=30,
        params=(
            Param("p", "probability", "P(the real question)", "P(the sensitive question)."),
            Param(
                "innocuous_prevalence",
                "probability",
                "Prevalence of the innocuous “yes”",
                "π of the innocuous question.",
            ),
        ),
        serves=BINARY_AND_EACH_OPTION,
        # p = ¾ with a 50–50 harmless question.
        starting={"name": NAME, "p": 0.75, "innocuous_prevalence": 0.5},
        build=_build,
        binary=True,
        page_module=True,
        p_no_given_trait=lambda q: (1.0 - q["p"]) * (1.0 - q["innocuous_prevalence"]),
        browser=BrowserHooks(_nominal, _realise, _sectors),
        cap_field=_cap_field,
        simulate=_simulate,
        device=_device,
        r_call=_r_call,
    )
)
