"""What the respondent's browser runs: each design as integer thresholds on a 2⁵³ grid.

The page draws a uniform integer ``U`` in ``[0, 2⁵³)`` from two ``crypto.getRandomValues`` words
(``hi·2²¹ + (lo >>> 11)``) and compares it with integer thresholds computed *here*, once, and
shipped unchanged in the page's question data: ``P(U < T) = T/2⁵³`` exactly, with no floating
point on the page. Why 2⁵³ and not 2³²: every integer up to 2⁵³ is exact in a JavaScript number,
and every float probability in [½, 1) is a multiple of 2⁻⁵³, so on this grid the common designs
are realised exactly and the others within 2⁻⁵⁴ (a 2³² grid moved p = 1e-11 to 0, issue 11 §3).

**The rule.** The ε the server reports for a question is never below the ε of what the page
runs: :func:`browser_plan` computes the *realised* probabilities T/2⁵³ exactly (fractions), their
ε in 50-digit decimal arithmetic, rounds it *up* to a float, and the reported ε is the larger of
that and the design's nominal ε (``surveys.definitions.question_designs.question_epsilon``; the
no-JS coin/dice
realisation is included there too). Designs a browser cannot realise (a probability that rounds
to 0 or 1 on the grid) raise :class:`~dpcore.errors.DesignError` naming the field.

**The cap.** :data:`MAX_LOCAL_EPSILON` = 10 per question. At ε = 10 the optimal binary design
reports the opposite answer with probability 1/(1 + e¹⁰) ≈ 4.5·10⁻⁵ — one respondent in
22,000 — and its variance term e^ε/(e^ε − 1)² ≈ 4.5·10⁻⁵ is 0.02% of the direct-questioning
variance ¼ at π = ½: above 10 a design buys no precision, only a loss of protection (a report
multiplies the odds by up to e¹⁰ ≈ 22,026). The cap also keeps the designs people use far from
the grid's resolution: a k-RR "other" probability is ≥ 1/(e¹⁰ + 49) ≈ 4.5·10⁻⁵ ≫ 2⁻⁵³.

Pure: the standard library and :mod:`dpcore.local` only (no Django).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Final, Protocol, runtime_checkable

from dpcore.errors import DesignError
from dpcore.local.designs._binary import BinaryDesign
from dpcore.local.designs._registry import BrowserHooks, design_named
from dpcore.local.designs.k_rr import KRRDesign
from dpcore.local.grid import GRID, RANDOM_BITS, epsilon_of_ratios, ln_ratio_up, on_grid

__all__ = [
    "GRID",
    "MAX_LOCAL_EPSILON",
    "RANDOM_BITS",
    "BrowserPlan",
    "OwnPlan",
    "browser_plan",
    "check_epsilon_cap",
    "epsilon_of_ratios",
]

#: Largest local ε accepted for one question (module notes).
MAX_LOCAL_EPSILON: Final = 10.0


@dataclasses.dataclass(frozen=True)
class BrowserPlan:
    """Integer thresholds (each in ``[0, 2⁵³]``) and the realised ε they give, rounded up.

    ``thresholds`` keys per design: forced response and the two-probability device ``truth``
    and ``yes`` (cumulative:
    ``U < truth`` → the true answer, ``U < yes`` → "yes", else "no"); Warner ``as_asked``;
    unrelated question ``sensitive`` and ``innocuous_yes`` (a second draw); k-RR ``keep`` (the
    other option is then drawn uniformly by rejection sampling, exactly). The two-probability
    device runs as forced response with ``truth = T(a) − T(b)`` and ``yes = T(a)``: the same
    report distribution given the true answer, ``P(yes | trait) = T(a)/2⁵³`` and
    ``P(yes | no trait) = T(b)/2⁵³``. The crosswise model has no randomizer: no thresholds, and ε
    is that of its exact fraction p.
    """

    thresholds: dict[str, int]
    epsilon: float
    p_yes_given_trait: Fraction | None = None
    p_yes_given_no_trait: Fraction | None = None


@runtime_checkable
class OwnPlan(Protocol):
    """A design that states its own thresholds and cap (one whose report is not one answer or one
    option: optimized unary encoding's k bits, :mod:`dpcore.local.oue`), so no function here
    names it."""

    def browser_plan(self) -> BrowserPlan: ...

    def check_epsilon_cap(self) -> None: ...


def krr_epsilon(keep: Fraction, k: int) -> float:
    """ε of k-RR keeping with ``keep`` and giving each other option ``(1 − keep)/(k − 1)``."""
    other = (1 - keep) / (k - 1)
    return max(ln_ratio_up(keep, other), ln_ratio_up(other, keep))


def check_epsilon_cap(design: BinaryDesign | KRRDesign | OwnPlan) -> None:
    """Refuse a design whose local ε exceeds :data:`MAX_LOCAL_EPSILON`, naming the field."""
    if isinstance(design, OwnPlan):
        design.check_epsilon_cap()
        return
    eps = design.epsilon
    if eps <= MAX_LOCAL_EPSILON:
        return
    message = (
        f"gives ε = {eps:.4g} for this question; at most {MAX_LOCAL_EPSILON:g} is accepted "
        "(above that a design barely randomizes: fewer than 1 report in 20,000 differs from "
        "the true answer)"
    )
    if isinstance(design, KRRDesign):
        raise DesignError("epsilon", message)
    field = design_named(design.name).epsilon_field(design.params)
    raise DesignError(field, message)


def _hooks(design: BinaryDesign) -> BrowserHooks:
    """The design's browser hooks (its registry entry); a design without them has no
    randomizer the page can run."""
    hooks = design_named(design.name).browser
    if hooks is None:  # pragma: no cover - only the crosswise model, handled before
        raise DesignError("name", "cannot be run by a browser")
    return hooks


def _realised(design: BinaryDesign | KRRDesign, t: tuple[int, ...]) -> BrowserPlan | None:
    """The plan for thresholds ``t`` (in :func:`_nominal_thresholds` order); None if a
    probability would be 0 or 1 (so that ε would be ∞)."""
    if not all(0 < x < GRID for x in t):
        return None
    if isinstance(design, KRRDesign):
        return BrowserPlan({"keep": t[0]}, krr_epsilon(Fraction(t[0], GRID), design.k))
    realised = _hooks(design).realise(t)
    if realised is None:
        return None
    thresholds, a, b = realised
    return BrowserPlan(thresholds, epsilon_of_ratios(a, b), a, b)


def _nominal_thresholds(design: BinaryDesign | KRRDesign) -> tuple[int, ...]:
    """Each probability rounded to the nearest grid point, refusing one that becomes 0 or 1."""
    if isinstance(design, KRRDesign):
        return (on_grid("epsilon", design.keep_probability),)
    return _hooks(design).nominal(design.params)


# Grid steps tried around the nearest thresholds, nearest first: rounding can put the realised ε
# an ulp above the nominal one; one or two steps of 2⁻⁵³ bring it back below.
_NUDGES: Final = sorted(
    ((i, j) for i in range(-2, 3) for j in range(-2, 3)), key=lambda d: (abs(d[0]) + abs(d[1]), d)
)


def browser_plan(design: BinaryDesign | KRRDesign | OwnPlan) -> BrowserPlan:
    """The thresholds the page uses unchanged, and the ε they realise (rounded up).

    The thresholds are the design's probabilities rounded to the grid, moved by at most two grid
    steps (2⁻⁵²) when that keeps the realised ε at or below the nominal one — so a design asked
    for at ε = 2 is run at ε ≤ 2, not at 2 + 4·10⁻¹⁶. When no such neighbour exists the nearest
    thresholds are used and their (higher) ε is what the server reports. Raises
    :class:`DesignError` naming the field when a probability rounds to 0 or 1 on the grid.
    """
    if isinstance(design, OwnPlan):
        return design.browser_plan()
    exact = design_named(design.name).no_randomizer if isinstance(design, BinaryDesign) else None
    if isinstance(design, BinaryDesign) and exact is not None:
        # No randomizer (crosswise): the respondent's own second fact is the randomness, so the
        # page draws nothing and ε is that of the exact report probabilities.
        a, b = exact(design.params)
        return BrowserPlan({}, epsilon_of_ratios(a, b), a, b)
    nominal = _nominal_thresholds(design)
    first = _realised(design, nominal)
    if first is None:  # pragma: no cover - _nominal_thresholds refuses these
        raise DesignError("name", "cannot be run by a browser")
    if first.epsilon <= design.epsilon:
        return first
    seen = {nominal}
    for step in _NUDGES:
        t = tuple(x + d for x, d in zip(nominal, step, strict=False))
        if t in seen:
            continue
        seen.add(t)
        plan = _realised(design, t)
        if plan is not None and plan.epsilon <= design.epsilon:
            return plan
    return first
