"""The crosswise model (Yu, Tian & Tang 2008): no randomizer; report "same" when the sensitive
and an innocuous statement of known prevalence p are both true or both false. ``c = 2p − 1``
(negative when p < ½), ``d = 1 − p``."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._binary import MAX_INNOCUOUS_TEXT, BinaryDesign
from dpcore.local.designs._registry import DesignEntry, Param, SimulationDraws, register
from dpcore.validation import design_probability as _probability

__all__ = ["ENTRY", "crosswise"]

NAME: Final = "crosswise"


def crosswise(innocuous_prevalence: float, innocuous_text: str | None = None) -> BinaryDesign:
    """The crosswise model (Yu, Tian & Tang 2008): report "same" when the sensitive and the
    innocuous statement (prevalence p, known) are both true or both false. ``λ = P(same) =
    pπ + (1 − p)(1 − π)``: ``c = 2p − 1``, ``d = 1 − p``, ``π̂ = (λ̂ + p − 1)/(2p − 1)``; local
    ε = ``|ln(p/(1 − p))|`` — valid only if the researcher cannot learn the innocuous fact.
    """
    p = _probability("innocuous_prevalence", innocuous_prevalence)
    if p in (0.0, 1.0):
        raise DesignError(
            "innocuous_prevalence",
            f"p = {p!r}: an innocuous statement true for nobody or everybody protects nobody "
            "(ε = ∞); use 0 < p < 1",
        )
    if p == 0.5:
        raise DesignError(
            "innocuous_prevalence", "p = 0.5 gives c = 2p − 1 = 0: the answers carry no information"
        )
    texts: dict[str, str] = {}
    if innocuous_text is not None:
        if not isinstance(innocuous_text, str) or not innocuous_text.strip():
            raise DesignError("innocuous_text", "must be a non-empty statement")
        if len(innocuous_text) > MAX_INNOCUOUS_TEXT:
            raise DesignError(
                "innocuous_text",
                f"at most {MAX_INNOCUOUS_TEXT} characters (got {len(innocuous_text)})",
            )
        texts["innocuous_text"] = innocuous_text.strip()
    return BinaryDesign(NAME, 2.0 * p - 1.0, 1.0 - p, {"innocuous_prevalence": p}, texts)


def _exact_report(params: Mapping[str, float]) -> tuple[Fraction, Fraction]:
    """P(same | trait) = p and P(same | no trait) = 1 − p, exactly (the page draws nothing)."""
    p = Fraction(params["innocuous_prevalence"])
    return p, 1 - p


def _simulate(spec: Mapping[str, Any], truth: bool, u: float, rng: SimulationDraws) -> bool:
    # No randomizer: the respondent's innocuous fact (true when u < p) is the randomness; SAME
    # (True) when both agree.
    return bool((u < spec["innocuous_prevalence"]) == truth)


def _build(spec: Mapping[str, Any], k: int | None) -> BinaryDesign:
    return crosswise(spec["innocuous_prevalence"], spec["innocuous_text"])


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Crosswise (no randomizer: same or different)",
        order=50,
        params=(
            Param(
                "innocuous_prevalence",
                "probability",
                "Prevalence of the innocuous “yes”",
                "Known prevalence p of the innocuous statement; not 0, ½ or 1.",
            ),
            Param(
                "innocuous_text",
                "text",
                "Innocuous statement shown to respondents",
                "The innocuous statement respondents read (required).",
                max_length=MAX_INNOCUOUS_TEXT,
            ),
        ),
        serves=frozenset({"binary"}),
        # The app starts it with the first vetted statement of its library (text and prevalence).
        starting={"name": NAME, "innocuous_prevalence": 0.25, "innocuous_text": ""},
        build=_build,
        binary=True,
        p_no_given_trait=lambda q: 1.0 - float(q["innocuous_prevalence"]),  # P(different | trait)
        negative_c=True,
        no_randomizer=_exact_report,
        simulate=_simulate,
    )
)
