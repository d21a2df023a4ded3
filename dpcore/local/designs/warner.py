"""Warner (1965): with probability p answer the statement as asked, else its negation."""

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

__all__ = ["ENTRY", "warner"]

NAME: Final = "warner"


def warner(p: float) -> BinaryDesign:
    """Warner (1965) mirrored design: with probability p answer "I have the trait", else its
    negation. ``λ = pπ + (1 − p)(1 − π)``, so ``c = 2p − 1``, ``d = 1 − p``; ε = ln(p/(1 − p)).
    """
    x = _probability("p", p)
    if x == 0.5:
        raise DesignError(
            "p", "p = 0.5 gives c = 2p − 1 = 0: the answers carry no information; use p > 0.5"
        )
    if x < 0.5:
        raise DesignError(
            "p",
            f"p = {x!r} gives c = 2p − 1 < 0 (the same design with the two "
            "statements swapped); use p > 0.5",
        )
    return BinaryDesign(NAME, 2.0 * x - 1.0, 1.0 - x, {"p": x})


def _realise(t: tuple[int, ...]) -> tuple[dict[str, int], Fraction, Fraction] | None:
    """``U < as_asked`` → the statement as asked, else its negation."""
    return {"as_asked": t[0]}, Fraction(t[0], GRID), 1 - Fraction(t[0], GRID)


def _simulate(spec: Mapping[str, Any], truth: bool, u: float, rng: SimulationDraws) -> bool:
    # Answer the statement with probability p, its negation otherwise.
    return truth if u < spec["p"] else not truth


def _sectors(params: Mapping[str, float]) -> list[tuple[str, float]]:
    return [("truth", params["p"]), ("negation", 1 - params["p"])]


def _device(params: Mapping[str, Any]) -> list[tuple[Outcome, float | Fraction]]:
    return [("truth", params["p"]), ("opposite", 1.0 - params["p"])]


def _r_call(key: str, term: str, spec: Mapping[str, Any]) -> str:
    return f'rrreg({term} ~ 1, data = reports, p = {spec["p"]!r}, design = "mirrored")'


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Warner (statement or its opposite)",
        order=20,
        params=(
            Param("p", "probability", "P(the real question)", "P(the sensitive statement); not ½."),
        ),
        serves=BINARY_AND_EACH_OPTION,
        starting={"name": NAME, "p": 0.75},  # ε = ln(p/(1 − p)) = ln 3, like the coin design
        build=lambda spec, k: warner(spec["p"]),
        binary=True,
        page_module=True,
        browser=BrowserHooks(lambda params: (on_grid("p", params["p"]),), _realise, _sectors),
        simulate=_simulate,
        device=_device,
        r_call=_r_call,
    )
)
