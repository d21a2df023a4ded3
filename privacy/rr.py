"""The randomized-response engine: designs, estimates, intervals, limits and planning.

Pure and typed: numpy and the standard library only, never Django (a test imports this module
with no Django settings and checks ``django`` stays out of ``sys.modules``). Formulas: DESIGN.md §4.

**Binary designs.** Every binary design reports "yes" with probability ``λ = c·π + d`` where π is
the prevalence of the sensitive trait, so ``P(yes | trait) = c + d`` and ``P(yes | no trait) = d``:

=================== ================================ =========== ================
design              parameters                       c           d
=================== ================================ =========== ================
forced response     p_truth q, p_yes f₁, p_no f₀     q           f₁
Warner (mirrored)   p                                2p − 1      1 − p
unrelated question  p, innocuous prevalence u        p           (1 − p)·u
=================== ================================ =========== ================

Sources: Warner, S. L. (1965) "Randomized response: a survey technique for eliminating evasive
answer bias", JASA 60:63–69; Boruch, R. F. (1971) "Assuring confidentiality of responses in social
research: a note on strategies", The American Sociologist 6:308–311 (forced response); Greenberg,
B. G., Abul-Ela, A.-L. A., Simmons, W. R. & Horvitz, D. G. (1969) "The unrelated question
randomized response model: theoretical framework", JASA 64:520–539.

**k options.** k-ary randomized response (generalized RR, "k-RR"/"direct encoding"): keep the true
option with ``p = e^ε/(e^ε + k − 1)``, else report one of the others uniformly, each with
``q = 1/(e^ε + k − 1)``. Wang, T., Blocki, J., Li, N. & Jha, S. (2017) "Locally differentially
private protocols for frequency estimation", USENIX Security.

**The limit.** Kairouz, P., Oh, S. & Viswanath, P. (2016) "Extremal mechanisms for local
differential privacy", JMLR 17: for a binary attribute under ε-LDP symmetric RR (keep probability
e^ε/(1 + e^ε)) is optimal, so ``Var(π̂) ≥ [π(1 − π) + e^ε/(e^ε − 1)²]/n``.

Intervals: Wilson (1927), see :mod:`privacy.rr_intervals`. Simplex projection: Duchi, J.,
Shalev-Shwartz, S., Singer, Y. & Chandra, T. (2008) "Efficient projections onto the ℓ₁-ball for
learning in high dimensions", ICML.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

import numpy.typing as npt

from privacy.rr_intervals import (
    INTERVAL_KINDS,
    FloatArray,
    _point_and_interval,
    check_confidence,
    check_interval_kind,
    exact_coverage_cd,
    interval_table,
    wilson_interval,
    z_value,
)

__all__ = [
    "BINARY_DESIGN_NAMES",
    "DEFAULT_YES_NO_SPEC",
    "DESIGN_NAMES",
    "INTERVAL_KINDS",
    "SUM_TOLERANCE",
    "BinaryDesign",
    "BinaryEstimate",
    "DesignError",
    "KRRDesign",
    "KRREstimate",
    "OptionEstimate",
    "binary_interval_table",
    "default_yes_no_spec",
    "deniability",
    "design_from_spec",
    "efficiency",
    "estimate_binary",
    "estimate_krr",
    "estimator_variance",
    "exact_coverage",
    "forced_response",
    "k_rr",
    "krr_deniability",
    "krr_proportion_variance",
    "krr_variance",
    "optimal_forced_response",
    "planned_half_width",
    "planned_half_width_direct",
    "project_to_simplex",
    "sample_size",
    "sample_size_direct",
    "unrelated_question",
    "variance_bound",
    "warner",
    "wilson_interval",
    "z_value",
]

#: Tolerance for "the probabilities sum to 1".
SUM_TOLERANCE: Final = 1e-9
#: A report probability at or below this is treated as zero (a one-sided design, ε = ∞); it keeps
#: rounding in e.g. ``p + (1 − p)·1`` from turning "not private" into "ε ≈ 37".
_ONE_SIDED_TOLERANCE: Final = 1e-12

BINARY_DESIGN_NAMES: Final = ("forced_response", "warner", "unrelated_question")
DESIGN_NAMES: Final = (*BINARY_DESIGN_NAMES, "k_rr")
_SPEC_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "forced_response": ("p_truth", "p_yes", "p_no"),
    "warner": ("p",),
    "unrelated_question": ("p", "innocuous_prevalence"),
    "k_rr": ("epsilon",),
}

#: The coin design: tell the truth with probability ½, else say "yes" (¼) or "no" (¼). ε = ln 3.
#: A plain dict (JSON-serialisable); do not mutate it — use :func:`default_yes_no_spec` for a copy.
DEFAULT_YES_NO_SPEC: Final[dict[str, Any]] = {
    "name": "forced_response",
    "p_truth": 0.5,
    "p_yes": 0.25,
    "p_no": 0.25,
}


def default_yes_no_spec() -> dict[str, Any]:
    """A fresh copy of :data:`DEFAULT_YES_NO_SPEC` (usable as a model field default)."""
    return dict(DEFAULT_YES_NO_SPEC)


# --- errors and validation -----------------------------------------------------------------------


class DesignError(ValueError):
    """An invalid randomization design. ``field`` names the offending parameter."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[type[DesignError], tuple[str, str]]:  # picklable (Celery)
        return (type(self), (self.field, self.message))


def _number(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real | Decimal):
        raise DesignError(field, f"must be a number (got {value!r})")
    try:
        x = float(value)
    except OverflowError:  # an int too large for a float (10**400)
        x = math.inf
    if not math.isfinite(x):
        raise DesignError(field, f"must be a finite number (got {value!r})")
    return x


def _probability(field: str, value: object) -> float:
    x = _number(field, value)
    if not 0.0 <= x <= 1.0:
        raise DesignError(field, f"must be a probability between 0 and 1 (got {x!r})")
    return x


#: Largest count (n, reported_yes, counts[i]) accepted: 2⁵³, the largest integer every float
#: operation on it represents exactly (and far above any survey).
MAX_COUNT: Final = 2**53


def _count(field: str, value: object) -> int:
    if type(value) is int and 0 <= value <= MAX_COUNT:  # the hot path: skip the ABC checks
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{field} must be an integer (got {value!r:.60})")
    if value < 0:
        raise ValueError(f"{field} must be non-negative (got {value!r})")
    if value > MAX_COUNT:
        raise ValueError(f"{field} must be at most 2**53 (got {value!r:.60})")
    return int(value)


def _check_prior(prior: float, field: str = "prior") -> float:
    if isinstance(prior, bool) or not isinstance(prior, int | float) or not 0.0 <= prior <= 1.0:
        raise ValueError(f"{field} must be a probability between 0 and 1 (got {prior!r:.60})")
    return float(prior)


def _check_n(n: int) -> int:
    n = _count("n", n)
    if n < 1:
        raise ValueError(f"n must be at least 1 (got {n!r})")
    return n


# --- designs -------------------------------------------------------------------------------------


def _binary_epsilon(c: float, d: float, no_given_trait: float) -> float:
    """Local ε of a binary design: ``max{ln((c + d)/d), ln((1 − d)/(1 − c − d))}``.

    The two terms are the likelihood ratios of a "yes" and of a "no" between a respondent with and
    without the trait. ∞ when ``d = 0`` or ``c + d = 1`` (a one-sided design: one answer proves the
    respondent's status). ``no_given_trait`` is ``1 − c − d``, passed in so that callers can supply
    it without cancellation.
    """
    if d <= _ONE_SIDED_TOLERANCE or no_given_trait <= _ONE_SIDED_TOLERANCE:
        return math.inf
    return max(math.log((c + d) / d), math.log((1.0 - d) / no_given_trait))


@dataclasses.dataclass(frozen=True)
class BinaryDesign:
    """A binary randomized-response design, ``P(report yes) = λ = c·π + d``.

    Build one with :func:`forced_response`, :func:`warner`, :func:`unrelated_question` or
    :func:`design_from_spec`; ``params`` holds the spec values those received (what
    :meth:`to_spec` returns). Treat ``params`` as read-only.
    """

    name: str
    c: float
    d: float
    params: dict[str, float] = dataclasses.field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.name not in BINARY_DESIGN_NAMES:
            raise DesignError("name", f"unknown binary design {self.name!r}")
        c, d = _number("c", self.c), _number("d", self.d)
        if c <= 0.0:
            raise DesignError("c", f"c = P(yes|trait) − P(yes|no trait) must be > 0 (got {c!r})")
        if d < 0.0:
            raise DesignError("d", f"d = P(yes | no trait) must be ≥ 0 (got {d!r})")
        if c + d > 1.0 + SUM_TOLERANCE:
            raise DesignError("d", f"c + d = P(yes | trait) must be ≤ 1 (got {c + d!r})")

    @property
    def epsilon(self) -> float:
        """Local ε = max{ln((c+d)/d), ln((1−d)/(1−c−d))}; ``math.inf`` for one-sided designs."""
        return _binary_epsilon(self.c, self.d, self.p_no_given_trait)

    @property
    def is_private(self) -> bool:
        """True when ε is finite (False: "not differentially private")."""
        return math.isfinite(self.epsilon)

    @property
    def p_yes_given_trait(self) -> float:
        return self.c + self.d

    @property
    def p_yes_given_no_trait(self) -> float:
        return self.d

    @property
    def p_no_given_trait(self) -> float:
        """``1 − c − d``, from the spec values when they give it without cancellation (forced
        response: p_no; unrelated question: (1 − p)(1 − u)), else computed (≥ 0)."""
        params = self.params
        if self.name == "forced_response" and "p_no" in params:
            return float(params["p_no"])
        if self.name == "unrelated_question" and params.keys() >= {"p", "innocuous_prevalence"}:
            return (1.0 - params["p"]) * (1.0 - params["innocuous_prevalence"])
        return max(0.0, 1.0 - self.c - self.d)

    def report_probability(self, prior: float) -> float:
        """``λ = c·π + d``, the probability of a "yes" report at prevalence π."""
        return self.c * _check_prior(prior) + self.d

    def to_spec(self) -> dict[str, Any]:
        """The JSON spec, e.g. ``{"name": "forced_response", "p_truth": 0.5, ...}``."""
        return {"name": self.name, **self.params}


@dataclasses.dataclass(frozen=True)
class KRRDesign:
    """k-ary randomized response (Wang et al. 2017): keep with p, each other option with q.

    ``p = e^ε/(e^ε + k − 1)``, ``q = 1/(e^ε + k − 1)``, so ``p/q = e^ε``. For one option v with
    frequency f_v, ``P(report v) = q + (p − q)·f_v``: a binary design with ``c = p − q``, ``d = q``.
    """

    k: int
    epsilon: float

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, numbers.Integral):
            raise DesignError("k", f"must be an integer number of options (got {self.k!r})")
        if self.k < 2:
            raise DesignError("k", f"k-RR needs at least 2 options (got {self.k!r})")
        eps = _number("epsilon", self.epsilon)
        if eps <= 0.0:
            raise DesignError("epsilon", f"must be > 0 (got {eps!r})")
        if not self.c > 0.0:  # p and q round to the same float (ε below ~1e-16·k)
            raise DesignError("epsilon", f"too small: p = q in floating point (got {eps!r})")

    @property
    def keep_probability(self) -> float:
        """``p = e^ε/(e^ε + k − 1)``, computed as ``1/(1 + (k − 1)e^−ε)`` (no overflow)."""
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))

    @property
    def other_probability(self) -> float:
        """``q = 1/(e^ε + k − 1)``, computed as ``e^−ε/(1 + (k − 1)e^−ε)``."""
        t = math.exp(-self.epsilon)
        return t / (1.0 + (self.k - 1) * t)

    @property
    def c(self) -> float:
        """``p − q``: the per-option slope of ``P(report v) = q + (p − q)·f_v``."""
        return self.keep_probability - self.other_probability

    @property
    def d(self) -> float:
        """``q``: the per-option intercept."""
        return self.other_probability

    @property
    def is_private(self) -> bool:
        return True

    def to_spec(self) -> dict[str, Any]:
        return {"name": "k_rr", "epsilon": self.epsilon}


Design = BinaryDesign | KRRDesign


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
    return BinaryDesign("forced_response", q, f1, {"p_truth": q, "p_yes": f1, "p_no": f0})


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
    return BinaryDesign("warner", 2.0 * x - 1.0, 1.0 - x, {"p": x})


def unrelated_question(p: float, innocuous_prevalence: float) -> BinaryDesign:
    """Unrelated question (Greenberg et al. 1969): with probability p answer the sensitive
    question, else an innocuous one with known prevalence u. ``c = p``, ``d = (1 − p)·u``.
    """
    x = _probability("p", p)
    u = _probability("innocuous_prevalence", innocuous_prevalence)
    if x == 0.0:
        raise DesignError("p", "p = 0 means the sensitive question is never answered; use p > 0")
    return BinaryDesign("unrelated_question", x, (1.0 - x) * u, {"p": x, "innocuous_prevalence": u})


def k_rr(k: int, epsilon: float) -> KRRDesign:
    """k-ary randomized response with k ≥ 2 options at local ε (0 < ε < ∞)."""
    return KRRDesign(k, epsilon)


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


def design_from_spec(spec: Mapping[str, Any], *, k: int | None = None) -> BinaryDesign | KRRDesign:
    """Build a design from its JSON spec; ``spec["name"]`` selects the design.

    Specs: ``{"name": "forced_response", "p_truth", "p_yes", "p_no"}``, ``{"name": "warner", "p"}``,
    ``{"name": "unrelated_question", "p", "innocuous_prevalence"}``, ``{"name": "k_rr",
    "epsilon"}`` (``k`` is the question's option count, passed as the keyword; a ``"k"`` key in the
    spec is accepted if it agrees). Unknown names, missing, unexpected, non-numeric, NaN or
    infinite parameters raise :class:`DesignError` naming the field.
    """
    if not isinstance(spec, Mapping):
        raise DesignError("spec", f"must be a mapping with a 'name' (got {type(spec).__name__})")
    name = spec.get("name")
    if name is None:
        raise DesignError("name", f"missing; expected one of {', '.join(DESIGN_NAMES)}")
    if not isinstance(name, str) or name not in _SPEC_FIELDS:
        raise DesignError(
            "name", f"unknown design {name!r}; expected one of {', '.join(DESIGN_NAMES)}"
        )
    fields = _SPEC_FIELDS[name]
    allowed = {"name", *fields, *(("k",) if name == "k_rr" else ())}
    unexpected = sorted(str(key) for key in spec if key not in allowed)
    if unexpected:
        raise DesignError(unexpected[0], f"unexpected parameter for design {name!r}")
    for field_name in fields:
        if field_name not in spec:
            raise DesignError(field_name, f"missing (design {name!r} needs {', '.join(fields)})")
    values = [_number(field_name, spec[field_name]) for field_name in fields]
    if name == "forced_response":
        return forced_response(*values)
    if name == "warner":
        return warner(*values)
    if name == "unrelated_question":
        return unrelated_question(*values)
    return k_rr(_spec_k(spec, k), values[0])


def _spec_k(spec: Mapping[str, Any], k: int | None) -> int:
    in_spec = spec.get("k")
    if k is None and in_spec is None:
        raise DesignError("k", "k-RR needs the number of options k")
    if k is not None and in_spec is not None and in_spec != k:
        raise DesignError("k", f"spec says k = {in_spec!r} but the question has {k!r} options")
    chosen = k if k is not None else in_spec
    if isinstance(chosen, bool) or not isinstance(chosen, numbers.Integral):
        raise DesignError("k", f"must be an integer number of options (got {chosen!r})")
    return int(chosen)


# --- estimates -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BinaryEstimate:
    """Prevalence estimate from ``reported_yes`` of ``n`` randomized reports.

    ``estimate_unclipped`` = (λ̂ − d)/c is unbiased (export it); ``estimate`` clips it to [0, 1]
    (the MLE; display it). With ``n == 0`` every float field is None.
    """

    n: int
    reported_yes: int
    reported_yes_rate: float | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    interval: str = "unified"


@dataclasses.dataclass(frozen=True)
class OptionEstimate:
    """One option of a k-RR estimate (its label lives with the question, not here).

    ``estimate`` is the simplex projection of all options' unbiased estimates (for display; it may
    lie outside this option's interval when the projection shifts it); ``estimate_unclipped`` is
    unbiased (export it). The interval is the Wilson-transformed one of this option alone.
    """

    reported: int
    reported_rate: float | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


@dataclasses.dataclass(frozen=True)
class KRREstimate:
    n: int
    confidence: float
    options: tuple[OptionEstimate, ...]


def estimate_binary(
    design: BinaryDesign,
    *,
    n: int,
    reported_yes: int,
    confidence: float = 0.95,
    interval: str = "unified",
) -> BinaryEstimate:
    """Estimate the prevalence π from ``reported_yes`` "yes" reports out of ``n``.

    ``π̂ = (λ̂ − d)/c`` (coin: 2λ̂ − ½), unbiased (Warner 1965); ``estimate = clip(π̂, 0, 1)``;
    ``SE = √(λ̂(1 − λ̂)/n)/c``. ``interval="unified"`` (default): the Wilson score statistic
    ordered from the constrained MLE, boundary-calibrated (Feldman & Cousins 1998; never zero
    width; equals ``wilson`` away from 0 and 1). ``interval="wilson"``: the Wilson (1927) interval
    ``[L, U]`` for λ mapped to ``[(L − d)/c, (U − d)/c]`` and clipped to [0, 1];
    ``interval="wald"``: ``π̂ ± z·SE`` clipped (undercovers at large ε; kept for comparison).

    Note: at π = 0 or 1 exactly the clipped Wilson interval can only miss on one side, so its
    coverage there is that of a one-sided 97.5% bound; the default "unified" interval brings it
    back near nominal (tests/privacy/test_unified_interval.py, bench/RESULTS.md §7).
    """
    n = _count("n", n)
    reported_yes = _count("reported_yes", reported_yes)
    if reported_yes > n:
        raise ValueError(f"reported_yes = {reported_yes} exceeds n = {n}")
    check_interval_kind(interval)
    z = z_value(confidence)
    if n == 0:
        return BinaryEstimate(0, 0, None, None, None, None, None, None, confidence, interval)
    rate = reported_yes / n
    est = _point_and_interval(rate, n, design.c, design.d, z, interval)
    return BinaryEstimate(n, reported_yes, rate, *est, confidence, interval)


def estimate_krr(
    design: KRRDesign,
    *,
    counts: Sequence[int],
    confidence: float = 0.95,
    interval: str = "unified",
) -> KRREstimate:
    """Estimate option frequencies from k-RR report counts ``C_v`` (Wang et al. 2017).

    ``ĉ_v = (C_v − n·q)/(p − q)`` (an unbiased count), proportion ``ĉ_v/n``; per option the
    binary formulas apply with ``c = p − q``, ``d = q``. The display ``estimate`` is the Euclidean
    projection of the unbiased proportions onto the probability simplex (Duchi et al. 2008).
    """
    if isinstance(counts, str | bytes | Mapping) or not isinstance(counts, Sequence | Iterable):
        raise ValueError(f"counts must be a sequence of k integers (got {type(counts).__name__})")
    values = tuple(_count(f"counts[{i}]", count) for i, count in enumerate(counts))
    if len(values) != design.k:
        raise ValueError(f"counts has {len(values)} entries but the design has k = {design.k}")
    check_interval_kind(interval)
    z = z_value(confidence)
    n = sum(values)
    if n == 0:
        empty = OptionEstimate(0, None, None, None, None, None, None)
        return KRREstimate(0, confidence, tuple(empty for _ in values))
    c, d = design.c, design.d
    rows = [_point_and_interval(count / n, n, c, d, z, interval) for count in values]
    display = project_to_simplex([row.estimate_unclipped for row in rows])
    options = tuple(
        OptionEstimate(
            count, count / n, shown, row.estimate_unclipped, row.std_error, row.ci_low, row.ci_high
        )
        for count, row, shown in zip(values, rows, display, strict=True)
    )
    return KRREstimate(n, confidence, options)


def project_to_simplex(values: Sequence[float]) -> tuple[float, ...]:
    """Euclidean projection onto ``{x : x ≥ 0, Σx = 1}`` (Duchi et al. 2008, Fig. 1).

    Sort ``u`` descending; ``ρ = max{j : u_j − (Σ_{r≤j} u_r − 1)/j > 0}``;
    ``θ = (Σ_{r≤ρ} u_r − 1)/ρ``; ``x_i = max(v_i − θ, 0)``. O(k log k), plain Python (k is small).
    """
    v = [float(x) for x in values]
    if not v:
        raise ValueError("cannot project an empty vector")
    if not all(math.isfinite(x) for x in v):
        raise ValueError("values must be finite")
    cumulative = 0.0
    theta = 0.0
    for j, u_j in enumerate(sorted(v, reverse=True), start=1):
        cumulative += u_j
        t = (cumulative - 1.0) / j
        if u_j - t > 0.0:
            theta = t
    return tuple(max(x - theta, 0.0) for x in v)


# --- limits, efficiency, deniability -------------------------------------------------------------


def _c_d(design: Design) -> tuple[float, float]:
    return design.c, design.d


def _report_variance(design: Design, pi: float) -> float:
    """``λ(1 − λ)`` at λ = cπ + d, with ``1 − λ = c(1 − π) + (1 − c − d)`` (no cancellation near
    λ = 1; for k-RR ``1 − c − d = 1 − p``)."""
    c, d = _c_d(design)
    if isinstance(design, BinaryDesign):
        no_given_trait = design.p_no_given_trait
    else:
        no_given_trait = (design.k - 1) * design.other_probability
    return (c * pi + d) * (c * (1.0 - pi) + no_given_trait)


def _ldp_term(epsilon: float) -> float:
    """``e^ε/(e^ε − 1)²``, written as ``e^−ε/(1 − e^−ε)²`` (→ 0 as ε → ∞, no overflow; → ∞ as
    ε → 0: ``math.inf`` once (1 − e^−ε)² underflows, ε ≲ 1e-154, where the true value > 1e308)."""
    denominator = math.expm1(-epsilon) ** 2
    if denominator == 0.0:
        return math.inf
    return math.exp(-epsilon) / denominator


def variance_bound(epsilon: float, pi: float, n: int) -> float:
    """Kairouz, Oh & Viswanath (2016): under ε-LDP no binary mechanism's unbiased estimator has
    ``Var(π̂) < [π(1 − π) + e^ε/(e^ε − 1)²]/n`` (attained by symmetric RR). Coin (ε = ln 3) at
    π = ½: 1/n. ε = ∞ gives π(1 − π)/n (direct questioning).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not epsilon > 0:
        raise ValueError(f"epsilon must be > 0 (got {epsilon!r:.60})")
    pi = _check_prior(pi, "pi")
    n = _check_n(n)
    eps = math.inf if epsilon > 1e308 else float(epsilon)  # an int beyond the float range: ∞
    return (pi * (1.0 - pi) + _ldp_term(eps)) / n


def estimator_variance(design: Design, pi: float, n: int) -> float:
    """``Var(π̂) = λ(1 − λ)/(c²·n)``, ``λ = cπ + d`` (exact for the unbiased estimator)."""
    c = design.c
    return _report_variance(design, _check_prior(pi, "pi")) / (c * c * _check_n(n))


def efficiency(design: BinaryDesign, pi: float, n: int = 1) -> float:
    """``variance_bound(ε, π, n) / estimator_variance(design, π, n)`` ∈ (0, 1]; 1 for the coin and
    every :func:`optimal_forced_response` / Warner design, at every π."""
    actual = estimator_variance(design, pi, n)
    bound = variance_bound(design.epsilon, pi, n)
    if actual == 0.0:  # one-sided design at π ∈ {0, 1}: both are 0
        return 1.0
    return bound / actual


def deniability(design: BinaryDesign, prior: float) -> float:
    """``P(trait | reported yes) = π(c + d)/λ``, ``λ = cπ + d`` (Bayes). Coin, π = 0.1: 0.25.

    1.0 for a one-sided design with d = 0 (a "yes" proves the trait).
    """
    pi = _check_prior(prior)
    if pi == 0.0:
        return 0.0
    return pi * (design.c + design.d) / (design.c * pi + design.d)


def krr_deniability(design: KRRDesign, prior: float) -> float:
    """``P(true option v | reported v) = π_v·p / (π_v·p + (1 − π_v)·q)`` for a prior π_v."""
    pi = _check_prior(prior)
    p, q = design.keep_probability, design.other_probability
    return pi * p / (pi * p + (1.0 - pi) * q)


def krr_variance(design: KRRDesign, n: int) -> float:
    """Approximate variance of the unbiased count ĉ_v (Wang et al. 2017, eq. for direct encoding):
    ``n·q(1 − q)/(p − q)² = n·(e^ε + k − 2)/(e^ε − 1)²`` (drops the term ``n·f_v(1 − p − q)/(p −
    q)``, small when f_v is). For a proportion divide by n²: ``(e^ε + k − 2)/(n(e^ε − 1)²)``; see
    :func:`krr_proportion_variance` for the exact per-frequency version.
    """
    n = _check_n(n)
    t = math.exp(-design.epsilon)  # multiply through by e^−2ε: no overflow at large ε
    return n * (t + (design.k - 2) * t * t) / math.expm1(-design.epsilon) ** 2


def krr_proportion_variance(design: KRRDesign, n: int, *, frequency: float | None = None) -> float:
    """Variance of one option's unbiased proportion ``ĉ_v/n``.

    ``frequency=None``: the approximation ``(e^ε + k − 2)/(n(e^ε − 1)²)``; otherwise exact:
    ``λ_v(1 − λ_v)/(n(p − q)²)`` with ``λ_v = q + (p − q)·f_v``.
    """
    n = _check_n(n)
    if frequency is None:
        return krr_variance(design, n) / (n * n)
    return estimator_variance(design, frequency, n)


# --- planning ------------------------------------------------------------------------------------


def _planning_variance(design: Design, prior: float | None) -> float:
    """``λ(1 − λ)`` for a guessed π, or the worst case (the largest) for None: ¼ when the design
    can report at λ = ½, else at the nearest attainable end of [d, c + d]."""
    if prior is not None:
        return _report_variance(design, _check_prior(prior))
    c, d = _c_d(design)
    if d > 0.5:
        return _report_variance(design, 0.0)
    if c + d < 0.5:
        return _report_variance(design, 1.0)
    return 0.25


def _check_half_width(half_width: float) -> float:
    if isinstance(half_width, bool) or not isinstance(half_width, int | float):
        raise ValueError(f"half_width must be a number (got {half_width!r:.60})")
    if not 0.0 < half_width < 1e308:  # also rejects NaN, ∞ and ints beyond the float range
        raise ValueError(f"half_width must be positive and finite (got {half_width!r:.60})")
    return float(half_width)


def _planned_n(numerator: float, h: float) -> int:
    """``⌈numerator/h²⌉``, dividing by h twice (h² underflows to 0 for h < 1e-162); a plan
    needing more respondents than a float holds is refused, naming ``half_width``."""
    n = numerator / h / h
    if not math.isfinite(n):
        raise ValueError(f"half_width is too small: over 1e308 respondents needed (got {h!r})")
    return _ceil(n)


def _ceil(x: float) -> int:
    """Round up, ignoring a relative excess of ≤ 1e-12 (so 1536.0000000001 is 1536)."""
    return max(1, math.ceil(x * (1.0 - 1e-12)))


def sample_size(
    design: Design,
    *,
    half_width: float,
    prior: float | None = None,
    confidence: float = 0.95,
) -> int:
    """Respondents for a ±``half_width`` interval: ``n = ⌈z²·λ(1 − λ)/(c²h²)⌉``, ``λ = cπ + d``.

    ``prior=None`` plans for the worst case (λ = ½ when attainable). Compare
    :func:`sample_size_direct`: the coin design at π = ½ needs 4× the respondents.
    """
    h = _check_half_width(half_width)
    z = z_value(confidence)
    c = design.c
    return _planned_n(z * z * _planning_variance(design, prior) / (c * c), h)


def sample_size_direct(
    *, half_width: float, prior: float | None = None, confidence: float = 0.95
) -> int:
    """Direct questioning: ``n = ⌈z²·π(1 − π)/h²⌉`` (worst case π = ½)."""
    h = _check_half_width(half_width)
    z = z_value(confidence)
    pi = 0.5 if prior is None else _check_prior(prior)
    return _planned_n(z * z * pi * (1.0 - pi), h)


def planned_half_width(
    design: Design, *, n: int, prior: float | None = None, confidence: float = 0.95
) -> float:
    """Expected interval half-width ``z·√(λ(1 − λ)/n)/c`` (the inverse of :func:`sample_size`)."""
    z = z_value(confidence)
    return z * math.sqrt(_planning_variance(design, prior) / _check_n(n)) / design.c


def planned_half_width_direct(
    *, n: int, prior: float | None = None, confidence: float = 0.95
) -> float:
    """Direct questioning: ``z·√(π(1 − π)/n)`` (worst case π = ½)."""
    z = z_value(confidence)
    pi = 0.5 if prior is None else _check_prior(prior)
    return z * math.sqrt(pi * (1.0 - pi) / _check_n(n))


# --- vectorised tables and exact coverage --------------------------------------------------------


def binary_interval_table(
    design: Design, *, n: int, confidence: float = 0.95, interval: str = "unified"
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(estimate, ci_low, ci_high)`` arrays for every outcome y = 0..n (numpy; matches
    :func:`estimate_binary` entry by entry)."""
    c, d = _c_d(design)
    return interval_table(c, d, _check_n(n), check_confidence(confidence), interval)


def exact_coverage(
    design: Design,
    *,
    n: int,
    pis: npt.ArrayLike,
    confidence: float = 0.95,
    interval: str = "unified",
) -> FloatArray:
    """Exact (not simulated) coverage ``P_π(ci_low ≤ π ≤ ci_high)`` for each π in ``pis``:
    the Bin(n, cπ + d) pmf summed over the outcomes whose interval contains π."""
    c, d = _c_d(design)
    return exact_coverage_cd(
        c, d, n=_check_n(n), pis=pis, confidence=check_confidence(confidence), interval=interval
    )
