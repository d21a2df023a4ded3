"""Randomized-response designs: the binary designs, k-RR, their specs and the default design.

Pure and typed: numpy and the standard library only, never Django (a test imports this module
with no Django settings and checks ``django`` stays out of ``sys.modules``). Formulas:
docs/formulas.md#local.

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

Estimates: :mod:`dpcore.local.estimators`; limits and planning: :mod:`dpcore.local.planning`;
intervals: :mod:`dpcore.local.intervals`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.validation import design_number as _number
from dpcore.validation import design_probability as _probability
from dpcore.validation import prior as _check_prior

__all__ = [
    "BINARY_DESIGN_NAMES",
    "DEFAULT_YES_NO_SPEC",
    "DESIGN_NAMES",
    "SUM_TOLERANCE",
    "BinaryDesign",
    "Design",
    "DesignError",
    "KRRDesign",
    "default_yes_no_spec",
    "design_from_spec",
    "forced_response",
    "k_rr",
    "optimal_forced_response",
    "unrelated_question",
    "warner",
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
