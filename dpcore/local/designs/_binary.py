"""The design types: a binary design ``λ = c·π + d``, k-RR, the default spec, ε of a binary design.

Pure and typed: numpy and the standard library only, never Django. Each design that builds these
is its own module of :mod:`dpcore.local.designs` (registered there); this module names none of
them: what differs by design (c may be negative, ``1 − c − d`` without cancellation) is asked of
the registry. Formulas: docs/formulas.md#local.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._registry import design_named
from dpcore.validation import design_number as _number
from dpcore.validation import prior as _check_prior

__all__ = [
    "MAX_INNOCUOUS_TEXT",
    "SUM_TOLERANCE",
    "BinaryDesign",
]

#: Tolerance for "the probabilities sum to 1".
SUM_TOLERANCE: Final = 1e-9
#: A report probability at or below this is treated as zero (a one-sided design, ε = ∞); it keeps
#: rounding in e.g. ``p + (1 − p)·1`` from turning "not private" into "ε ≈ 37".
_ONE_SIDED_TOLERANCE: Final = 1e-12

#: Longest innocuous statement accepted (characters).
MAX_INNOCUOUS_TEXT: Final = 500

# --- designs -------------------------------------------------------------------------------------


def _binary_epsilon(c: float, d: float, no_given_trait: float) -> float:
    """Local ε of a binary design: ``max{ln((c + d)/d), ln((1 − d)/(1 − c − d))}``.

    The two terms are the likelihood ratios of a "yes" and of a "no" between a respondent with and
    without the trait. ∞ when ``d = 0`` or ``c + d = 1`` (a one-sided design: one answer proves the
    respondent's status). ``no_given_trait`` is ``1 − c − d``, passed in so that callers can supply
    it without cancellation.
    Absolute values: for the crosswise model with p < ½ (c < 0) both logs are negative.
    """
    if d <= _ONE_SIDED_TOLERANCE or no_given_trait <= _ONE_SIDED_TOLERANCE:
        return math.inf
    return max(abs(math.log((c + d) / d)), abs(math.log((1.0 - d) / no_given_trait)))


@dataclasses.dataclass(frozen=True)
class BinaryDesign:
    """A binary randomized-response design, ``P(report yes) = λ = c·π + d``.

    Build one with a design module's function (:func:`~dpcore.local.designs.forced_response`…)
    or :func:`~dpcore.local.designs.design_from_spec`; ``params`` holds the spec values those
    received (what :meth:`to_spec` returns). Treat ``params`` as read-only.
    """

    name: str
    c: float
    d: float
    params: dict[str, float] = dataclasses.field(default_factory=dict, hash=False)
    #: Text spec fields (the crosswise model's ``innocuous_text``), part of :meth:`to_spec`.
    texts: dict[str, str] = dataclasses.field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        try:
            entry = design_named(self.name)
        except KeyError:
            entry = None
        if entry is None or not entry.binary:
            raise DesignError("name", f"unknown binary design {self.name!r}")
        c, d = _number("c", self.c), _number("d", self.d)
        if c <= 0.0 and not (entry.negative_c and c < 0.0):  # crosswise: c = 2p − 1 may be < 0
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
        """``1 − c − d``, from the spec values when the design gives it without cancellation
        (forced response: p_no; unrelated question: (1 − p)(1 − u)), else computed (≥ 0)."""
        exact = design_named(self.name).p_no_given_trait
        if exact is not None:
            try:
                return exact(self.params)
            except KeyError:  # built from c and d alone, without the spec values
                pass
        return max(0.0, 1.0 - self.c - self.d)

    def report_probability(self, prior: float) -> float:
        """``λ = c·π + d``, the probability of a "yes" report at prevalence π."""
        return self.c * _check_prior(prior) + self.d

    def to_spec(self) -> dict[str, Any]:
        """The JSON spec: ``{"name": <the design>, <its parameters>}``."""
        return {"name": self.name, **self.params, **self.texts}
