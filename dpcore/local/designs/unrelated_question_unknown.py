"""The unrelated question with an *unknown* innocuous prevalence (Greenberg, Abul-Ela, Simmons &
Horvitz 1969; ``RRreg``'s "UQTunknown", Heck & Moshagen 2018). Pure: numpy and the standard library.

**Model.** Each respondent's device draws group i ∈ {1, 2} (½ each) and then, with probability
``p_i``, asks the sensitive question, else an innocuous one (``innocuous_text``, e.g. "Were you born
in the first half of the year?") whose prevalence u is *not* known: the respondent answers
whichever was asked, and the report is ``{group, report}``. In group i

    λ_i = P(yes | group i) = p_i·π + (1 − p_i)·u,

two linear equations ``A·(π, u)ᵀ = (λ₁, λ₂)ᵀ`` with ``A = [[p₁, 1 − p₁], [p₂, 1 − p₂]]`` and
``det A = p₁ − p₂`` (the groups must differ). **Estimates** (RRreg's ``RRuni.UQTunknown``):

    π̂ = (λ̂₁(1 − p₂) − λ̂₂(1 − p₁))/(p₁ − p₂),  Var π̂ = [(1 − p₂)²·V₁ + (1 − p₁)²·V₂]/(p₁ − p₂)²,
    û = (p₂λ̂₁ − p₁λ̂₂)/(p₂ − p₁),             Var û = [p₂²·V₁ + p₁²·V₂]/(p₁ − p₂)²,

with ``V_i = λ̂_i(1 − λ̂_i)/n_i`` — the moment estimator of :mod:`dpcore.local.grouped`; outside
the unit square the ML estimate on its boundary is reported (``at_boundary``).

**Local ε.** The innocuous answer is the respondent's own fact, unknown to the researcher: the
protection comes from its spread in the population, so ε needs bounds ``innocuous_prevalence_min``
≤ u ≤ ``innocuous_prevalence_max`` (valid only if u lies between them and the researcher cannot
learn the innocuous fact). In group i, ``P(yes | trait) = p_i + (1 − p_i)u``, ``P(yes | no
trait) = (1 − p_i)u``: ``ln(P(yes | trait)/P(yes | no trait))`` falls with u and
``ln(P(no | no trait)/P(no | trait))`` rises with u, so the worst case is the first at the lower
bound and the second at the upper one; a respondent's ε is the larger group's (the group is drawn
independently of the answer).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

import numpy as np

from dpcore.errors import ArgumentError, DesignError
from dpcore.local import grouped
from dpcore.local.bounded_interval import adjusted_proportions
from dpcore.local.designs._binary import MAX_INNOCUOUS_TEXT
from dpcore.local.designs._registry import DesignEntry, Param, register
from dpcore.local.grid import GRID, epsilon_of_ratios, on_grid
from dpcore.local.grouped import ParameterEstimate
from dpcore.stats import clip01, z_value
from dpcore.validation import count as _count
from dpcore.validation import design_probability as _probability

__all__ = [
    "ENTRY",
    "UQTEstimate",
    "UnknownUQTDesign",
    "browser_thresholds",
    "estimate_unrelated_question_unknown",
    "unrelated_question_unknown",
]

NAME: Final = "unrelated_question_unknown"
_MIN_DETERMINANT: Final = 1e-6
#: The unit square 0 ≤ π, u ≤ 1: its edges in (π, u).
_SQUARE: Final = (
    ((0.0, 0.0), (1.0, 0.0)),
    ((0.0, 0.0), (0.0, 1.0)),
    ((1.0, 0.0), (1.0, 1.0)),
    ((0.0, 1.0), (1.0, 1.0)),
)


def _group_epsilon(p: Fraction, low: Fraction, high: Fraction) -> float:
    """``max{ln((p + (1 − p)·low)/((1 − p)·low)), ln((1 − (1 − p)·high)/((1 − p)(1 − high)))}``,
    rounded up (∞ if one-sided)."""
    return max(
        epsilon_of_ratios(p + (1 - p) * low, (1 - p) * low),
        epsilon_of_ratios(p + (1 - p) * high, (1 - p) * high),
    )


@dataclasses.dataclass(frozen=True)
class UnknownUQTDesign:
    """Two groups asking the sensitive question with ``p = (p₁, p₂)``; the innocuous question's
    text and the bounds on its prevalence that the stated ε assumes."""

    p: tuple[float, float]
    innocuous_text: str
    prevalence_bounds: tuple[float, float]
    name: str = NAME

    @property
    def matrix(self) -> np.ndarray:
        """``A`` with ``(λ₁, λ₂)ᵀ = A·(π, u)ᵀ``: rows ``(p_i, 1 − p_i)``."""
        return np.array([[p, 1.0 - p] for p in self.p], dtype=np.float64)

    @property
    def group_epsilons(self) -> tuple[float, float]:
        low, high = (Fraction(b) for b in self.prevalence_bounds)
        first, second = (_group_epsilon(Fraction(p), low, high) for p in self.p)
        return first, second

    @property
    def epsilon(self) -> float:
        """A respondent's local ε (the larger group's), under the prevalence bounds."""
        return max(self.group_epsilons)

    @property
    def is_private(self) -> bool:
        return math.isfinite(self.epsilon)

    def browser_plan(self) -> Any:
        """The page's thresholds and the ε they realise (:func:`browser_thresholds`), as the
        ``dpcore.local.browser.OwnPlan`` hook: the grouped design runs through the same checks as
        the one-report designs, so no function there names it."""
        from dpcore.local.browser import BrowserPlan  # browser imports the designs package

        thresholds, epsilon = browser_thresholds(self)
        return BrowserPlan(thresholds, epsilon)

    def check_epsilon_cap(self) -> None:
        """Refuse ε above ``dpcore.local.browser.MAX_LOCAL_EPSILON``, naming the group."""
        from dpcore.local.browser import MAX_LOCAL_EPSILON

        for i, eps in enumerate(self.group_epsilons):
            if eps > MAX_LOCAL_EPSILON:
                raise DesignError(
                    f"groups[{i}].p",
                    f"gives ε = {eps:.4g} in this group; at most {MAX_LOCAL_EPSILON:g} is "
                    "accepted (widen the prevalence bounds' distance from 0 and 1, or lower p)",
                )

    def report_probabilities(self, prevalence: float, innocuous: float) -> tuple[float, float]:
        """``(λ₁, λ₂)`` at prevalence π and innocuous prevalence u."""
        first, second = (p * prevalence + (1.0 - p) * innocuous for p in self.p)
        return first, second

    def to_spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "groups": [{"p": p} for p in self.p],
            "innocuous_text": self.innocuous_text,
            "innocuous_prevalence_min": self.prevalence_bounds[0],
            "innocuous_prevalence_max": self.prevalence_bounds[1],
        }


def _text(raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise DesignError("innocuous_text", "must be a non-empty question")
    if len(raw) > MAX_INNOCUOUS_TEXT:
        raise DesignError(
            "innocuous_text", f"at most {MAX_INNOCUOUS_TEXT} characters (got {len(raw)})"
        )
    return raw.strip()


def _bounds(low: object, high: object) -> tuple[float, float]:
    lo = _probability("innocuous_prevalence_min", low)
    hi = _probability("innocuous_prevalence_max", high)
    if not 0.0 < lo:
        raise DesignError("innocuous_prevalence_min", "must be > 0 (else ε = ∞)")
    if not hi < 1.0:
        raise DesignError("innocuous_prevalence_max", "must be < 1 (else ε = ∞)")
    if hi < lo:
        raise DesignError("innocuous_prevalence_max", f"must be ≥ the minimum {lo!r}")
    return lo, hi


def unrelated_question_unknown(
    p: Sequence[float], innocuous_text: str, prevalence_bounds: tuple[float, float]
) -> UnknownUQTDesign:
    """The design with ``p = (p₁, p₂)``; raises :class:`DesignError` naming the field."""
    if isinstance(p, str | bytes) or len(p) != 2:
        raise DesignError("groups", "give exactly two groups, each {p}")
    p1, p2 = (_probability(f"groups[{i}].p", v) for i, v in enumerate(p))
    if abs(p1 - p2) < _MIN_DETERMINANT:
        raise DesignError(
            "groups",
            "the two groups must ask the sensitive question with different p (else π "
            "and the innocuous prevalence cannot be told apart)",
        )
    for i, value in enumerate((p1, p2)):
        if value >= 1.0:
            raise DesignError(f"groups[{i}].p", "must be < 1 (p = 1 is a direct question)")
    bounds = _bounds(*prevalence_bounds)
    return UnknownUQTDesign((p1, p2), _text(innocuous_text), bounds)


def design_from_spec(spec: Mapping[str, Any]) -> UnknownUQTDesign:
    """``{"name", "groups": [{"p"}, {"p"}], "innocuous_text", "innocuous_prevalence_min",
    "innocuous_prevalence_max"}`` → the design."""
    keys = ("groups", "innocuous_text", "innocuous_prevalence_min", "innocuous_prevalence_max")
    unexpected = sorted(str(k) for k in spec if k not in ("name", *keys))
    if unexpected:
        raise DesignError(unexpected[0], f"unexpected parameter for design {NAME!r}")
    for key in keys:
        if key not in spec:
            raise DesignError(key, f"missing (design {NAME!r} needs {', '.join(keys)})")
    groups = spec["groups"]
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence) or len(groups) != 2:
        raise DesignError("groups", "give exactly two groups, each {p}")
    for i, group in enumerate(groups):
        if not isinstance(group, Mapping) or set(group) != {"p"}:
            raise DesignError(f"groups[{i}]", "must be an object with p alone")
    bounds = (spec["innocuous_prevalence_min"], spec["innocuous_prevalence_max"])
    return unrelated_question_unknown(
        [g["p"] for g in groups],
        spec["innocuous_text"],
        bounds,
    )


# --- estimates -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class UQTEstimate:
    """π (``prevalence``) and u (``innocuous_prevalence``) from per-group counts."""

    n: tuple[int, int]
    reported_yes: tuple[int, int]
    prevalence: ParameterEstimate
    innocuous_prevalence: ParameterEstimate
    at_boundary: bool
    confidence: float


def estimate_unrelated_question_unknown(
    design: UnknownUQTDesign,
    *,
    n: Sequence[int],
    reported_yes: Sequence[int],
    confidence: float = 0.95,
) -> UQTEstimate:
    """π and u from ``n[i]`` reports in group i + 1, ``reported_yes[i]`` of them "yes". A group
    without reports leaves both estimates None (two groups are needed to separate π from u)."""
    if len(n) != 2 or len(reported_yes) != 2:
        raise ArgumentError("n", "give the counts of both groups")
    n1, n2 = (_count(f"n[{i}]", v) for i, v in enumerate(n))
    y1, y2 = (_count(f"reported_yes[{i}]", v) for i, v in enumerate(reported_yes))
    for i, (yes, size) in enumerate(((y1, n1), (y2, n2))):
        if yes > size:
            raise ArgumentError(f"reported_yes[{i}]", f"exceeds n[{i}] = {size}")
    z = z_value(confidence)
    if min(n1, n2) == 0:
        return UQTEstimate((n1, n2), (y1, y2), grouped.EMPTY, grouped.EMPTY, False, confidence)
    sizes = np.array([n1, n2], dtype=np.float64)
    rates = np.array([y1 / n1, y2 / n2])
    inverse = np.linalg.inv(design.matrix)
    pi_u, u_u = (float(x) for x in inverse @ rates)
    cov = grouped.covariance(inverse, rates, sizes)
    adjusted = [adjusted_proportions([y, m - y], z) for y, m in ((y1, n1), (y2, n2))]
    icov = grouped.covariance(
        inverse, np.array([a[0][0] for a in adjusted]), np.array([a[1] for a in adjusted])
    )
    inside = 0.0 <= pi_u <= 1.0 and 0.0 <= u_u <= 1.0
    point = (
        (pi_u, u_u) if inside else grouped.boundary_ml(design.matrix, (y1, y2), (n1, n2), _SQUARE)
    )
    return UQTEstimate(
        n=(n1, n2),
        reported_yes=(y1, y2),
        prevalence=grouped.parameter_estimate(
            clip01(point[0]), pi_u, cov[0, 0], icov[0, 0], confidence
        ),
        innocuous_prevalence=grouped.parameter_estimate(
            clip01(point[1]), u_u, cov[1, 1], icov[1, 1], confidence
        ),
        at_boundary=not inside,
        confidence=confidence,
    )


# --- what the browser runs ------------------------------------------------------------------------


def browser_thresholds(design: UnknownUQTDesign) -> tuple[dict[str, int], float]:
    """The page's integers and the ε they realise (rounded up; the larger group's): the page draws
    the group with ``randomBelow(2)``, then asks the sensitive question when ``U <
    group_<i>_sensitive``, else the innocuous one."""
    low, high = (Fraction(b) for b in design.prevalence_bounds)
    thresholds: dict[str, int] = {}
    epsilon = design.epsilon
    for i, p in enumerate(design.p, start=1):
        t = on_grid(f"groups[{i - 1}].p", p) if p > 0.0 else 0
        thresholds[f"group_{i}_sensitive"] = t
        epsilon = max(epsilon, _group_epsilon(Fraction(t, GRID), low, high))
    return thresholds, epsilon


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="Unrelated question, unknown innocuous prevalence (two groups)",
        order=35,
        params=(
            Param(
                "groups",
                "groups",
                "Group",
                "Two groups (drawn ½ each), each {p}: P(the sensitive question) in that group, "
                "below 1; the two must differ. Reports are {group, report}.",
                fields=(Param("p", "probability", "P(the real question)", "P(sensitive)."),),
                count=2,
            ),
            Param(
                "innocuous_text",
                "text",
                "Innocuous question shown to respondents",
                "The innocuous question respondents answer when the device does not ask the "
                "sensitive one (required).",
                max_length=MAX_INNOCUOUS_TEXT,
            ),
            Param(
                "innocuous_prevalence_min",
                "probability",
                "Innocuous “yes” at least",
                "A lower bound on the innocuous prevalence (> 0): the ε stated assumes it.",
            ),
            Param(
                "innocuous_prevalence_max",
                "probability",
                "Innocuous “yes” at most",
                "An upper bound on the innocuous prevalence (< 1): the ε stated assumes it.",
            ),
        ),
        serves=frozenset({"binary"}),
        # p₁ and p₂ well apart (Greenberg et al.: the further, the more precise) with ε ≈ 1.8 for
        # an innocuous prevalence in [0.2, 0.3]; the app fills the text of its first vetted
        # innocuous statement (prevalence ≈ ¼).
        starting={
            "name": NAME,
            "groups": [{"p": 0.5}, {"p": 0.1}],
            "innocuous_text": "",
            "innocuous_prevalence_min": 0.2,
            "innocuous_prevalence_max": 0.3,
        },
        build=lambda spec, k: design_from_spec(spec),
        grouped=True,
    )
)
