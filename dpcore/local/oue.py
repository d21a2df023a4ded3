"""Optimized unary encoding (OUE; Wang, Blocki, Li & Jha, USENIX Security 2017) for a
question of k options: the answer is encoded as k bits (1 for the true option), and each bit is
reported independently — the true option's bit kept at 1 with ``p = ½``, every other bit set to 1
with ``q = 1/(e^ε + 1)``.

**Privacy.** Two true answers v ≠ v′ differ in two bits' distributions, so the likelihood ratio of
any report vector is at most ``p(1 − q)/((1 − p)q) = e^ε`` at p = ½: exactly ε-LDP for the whole
vector (not per bit). :meth:`OUEDesign.browser_plan` computes the ε of the integer thresholds the
page runs (and of the coins/dice the no-JS page may run) exactly, rounded up.

**Estimate.** Per option, ``f̂_v = (C_v/n − q)/(p − q)`` (C_v: reports with bit v set, n
respondents) is unbiased; given the true answers, ``Var f̂_v = q(1 − q)/(n(p − q)²) +
f_v(1 − p − q)/(n(p − q))`` (Wang et al. 2017; at p = ½ the first term is
``4e^ε/(n(e^ε − 1)²)``). Its interval is the binary one with ``c = p − q``, ``d = q``, and the
displayed estimates are projected onto the simplex as k-RR's are. Formulas: docs/formulas.md#oue.

Pure: the standard library and :mod:`dpcore.local` only (no Django).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final

from dpcore.errors import ArgumentError, DesignError
from dpcore.local.browser import MAX_LOCAL_EPSILON, BrowserPlan
from dpcore.local.estimators import KRREstimate, OptionEstimate, project_to_simplex
from dpcore.local.grid import GRID, ln_ratio_up, on_grid
from dpcore.local.intervals import point_and_interval_unchecked as _point_and_interval
from dpcore.local.recommend import option_variance
from dpcore.stats import z_value
from dpcore.validation import check_interval_kind
from dpcore.validation import count as _count
from dpcore.validation import design_number as _number

__all__ = [
    "DEVICE_FACES",
    "NAME",
    "OUEDesign",
    "device_share",
    "estimate_oue",
    "oue",
    "oue_epsilon",
]

NAME: Final = "oue"
#: The true option's bit is kept with exactly ½ (Wang et al.'s optimum): 2⁵² on the grid.
KEEP: Final = Fraction(1, 2)
#: The equally likely faces of the no-JS devices (a coin, two coins, a die, two dice), in the
#: order ``surveys.definitions.physical.DEVICES`` lists them.
DEVICE_FACES: Final = (2, 4, 6, 36)
# A float probability and a face fraction this close are the same number written in binary.
_MATCH: Final = Fraction(1, 2**50)


def oue_epsilon(keep: Fraction, flip: Fraction) -> float:
    """ε of OUE with exact bit probabilities: ``ln(p(1 − q)/((1 − p)q))``, rounded up."""
    if not (0 < keep < 1 and 0 < flip < 1):
        return math.inf
    return max(ln_ratio_up(keep * (1 - flip), (1 - keep) * flip), 0.0)


def device_share(q: float) -> Fraction | None:
    """``q`` as a whole number of faces m/n of the smallest device that holds it exactly (within
    2⁻⁵⁰), or None (then no coin or die runs the design: the question needs JavaScript)."""
    exact = Fraction(q)
    for faces in DEVICE_FACES:
        m = round(exact * faces)
        if 1 <= m < faces and abs(exact - Fraction(m, faces)) <= _MATCH:
            return Fraction(m, faces)
    return None


@dataclasses.dataclass(frozen=True)
class OUEDesign:
    """OUE over k options at local ε: bit of the true option 1 w.p. ``p = ½``, others w.p. ``q``.

    Per option ``P(bit v = 1) = q + (p − q)·f_v``: a binary design with ``c = p − q``, ``d = q``
    applied to each option's bit, with n the number of respondents.
    """

    k: int
    epsilon: float

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, numbers.Integral):
            raise DesignError("k", f"must be an integer number of options (got {self.k!r})")
        if self.k < 2:
            raise DesignError("k", f"OUE needs at least 2 options (got {self.k!r})")
        eps = _number("epsilon", self.epsilon)
        if eps <= 0.0:
            raise DesignError("epsilon", f"must be > 0 (got {eps!r})")
        if not self.c > 0.0:
            raise DesignError("epsilon", f"too small: p = q in floating point (got {eps!r})")

    @property
    def keep_probability(self) -> float:
        """``p = ½``: the true option's bit is reported 1 with this probability."""
        return 0.5

    @property
    def other_probability(self) -> float:
        """``q = 1/(e^ε + 1)``, computed as ``e^−ε/(1 + e^−ε)`` (no overflow)."""
        t = math.exp(-self.epsilon)
        return t / (1.0 + t)

    @property
    def c(self) -> float:
        """``p − q = (e^ε − 1)/(2(e^ε + 1))``: the per-option slope."""
        return 0.5 - self.other_probability

    @property
    def d(self) -> float:
        """``q``: the per-option intercept."""
        return self.other_probability

    @property
    def is_private(self) -> bool:
        return True

    @property
    def name(self) -> str:
        return NAME

    def to_spec(self) -> dict[str, Any]:
        return {"name": NAME, "epsilon": self.epsilon}

    def check_epsilon_cap(self) -> None:
        """Refuse ε above :data:`dpcore.local.browser.MAX_LOCAL_EPSILON`, naming ``epsilon``."""
        if self.epsilon > MAX_LOCAL_EPSILON:
            raise DesignError(
                "epsilon",
                f"gives ε = {self.epsilon:.4g} for this question; at most "
                f"{MAX_LOCAL_EPSILON:g} is accepted",
            )

    def browser_plan(self) -> BrowserPlan:
        """The page's thresholds ``keep`` = 2⁵² (½ exactly) and ``flip`` ≈ q·2⁵³, and the ε
        they realise — raised to the ε of the no-JS faces when a coin or die runs the design
        (the reported ε covers both paths). ``flip`` is nudged up by at most two grid steps when
        that brings the realised ε to the nominal one or below (a larger q, a smaller ε)."""
        keep = on_grid("epsilon", KEEP)
        nearest = on_grid("epsilon", self.other_probability)
        flip, epsilon = nearest, oue_epsilon(KEEP, Fraction(nearest, GRID))
        for step in (1, 2):
            if epsilon <= self.epsilon or nearest + step >= GRID // 2:
                break
            candidate = oue_epsilon(KEEP, Fraction(nearest + step, GRID))
            if candidate <= self.epsilon:
                flip, epsilon = nearest + step, candidate
        share = device_share(self.other_probability)
        if share is not None:
            epsilon = max(epsilon, oue_epsilon(KEEP, share))
        return BrowserPlan({"keep": keep, "flip": flip}, epsilon)

    def proportion_variance(self, n: int, frequency: float) -> float:
        """``Var f̂_v`` given the true answers (module notes; Wang et al. 2017)."""
        return option_variance(self.c, self.d, n, frequency)


def oue(k: int, epsilon: float) -> OUEDesign:
    """OUE with k ≥ 2 options at local ε (0 < ε < ∞)."""
    return OUEDesign(k, epsilon)


def estimate_oue(
    design: OUEDesign,
    *,
    n: int,
    counts: Sequence[int],
    confidence: float = 0.95,
    interval: str = "unified",
) -> KRREstimate:
    """Option shares from OUE bit counts ``C_v`` of ``n`` respondents.

    Per option the binary formulas with ``c = p − q``, ``d = q`` (``(C_v/n − q)/(p − q)``,
    unbiased; SE ``√(λ̂(1 − λ̂)/n)/c``); ``estimate`` is the simplex projection of the unbiased
    shares (Duchi et al. 2008), as k-RR's (:func:`dpcore.local.estimators.estimate_krr`).
    """
    n = _count("n", n)
    values = tuple(_count(f"counts[{i}]", c) for i, c in enumerate(counts))
    if len(values) != design.k:
        raise ArgumentError(
            "counts", f"counts has {len(values)} entries but the design has k = {design.k}"
        )
    for i, value in enumerate(values):
        if value > n:
            raise ArgumentError(f"counts[{i}]", f"{value} bits set exceeds n = {n}")
    check_interval_kind(interval)
    z = z_value(confidence)
    if n == 0:
        empty = OptionEstimate(0, None, None, None, None, None, None)
        return KRREstimate(0, confidence, tuple(empty for _ in values))
    rows = [_point_and_interval(v / n, n, design.c, design.d, z, interval) for v in values]
    display = project_to_simplex([row.estimate_unclipped for row in rows])
    options = tuple(
        OptionEstimate(v, v / n, shown, r.estimate_unclipped, r.std_error, r.ci_low, r.ci_high)
        for v, r, shown in zip(values, rows, display, strict=True)
    )
    return KRREstimate(n, confidence, options)
