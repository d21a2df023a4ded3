"""k-ary randomized response (Wang et al. 2017) for a question of k options: keep the true option
with ``p = e^ε/(e^ε + k − 1)``, else report one of the others uniformly."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._registry import DesignEntry, Param, register
from dpcore.validation import design_number as _number

__all__ = ["DEFAULT_CHOICE_EPSILON", "ENTRY", "KRRDesign", "k_rr"]

NAME: Final = "k_rr"
#: Largest local ε the schema states (the browser's cap, :data:`dpcore.local.browser.
#: MAX_LOCAL_EPSILON`, which imports this module: so the value is repeated, and a test checks it).
_MAX_EPSILON: Final = 10.0
#: ln 3 ≈ 1.0986: the same local ε as the default coin design for yes/no questions, so every
#: randomized question of a default survey protects the respondent equally.
DEFAULT_CHOICE_EPSILON: Final = math.log(3)


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
        return {"name": NAME, "epsilon": self.epsilon}

    @property
    def name(self) -> str:
        return NAME


def k_rr(k: int, epsilon: float) -> KRRDesign:
    """k-ary randomized response with k ≥ 2 options at local ε (0 < ε < ∞)."""
    return KRRDesign(k, epsilon)


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


ENTRY: Final = register(
    DesignEntry(
        name=NAME,
        title="k-ary randomized response",
        order=60,
        params=(
            Param(
                "epsilon",
                "positive",
                "Local ε for this question (k-RR)",
                "Local ε of k-ary randomized response; default ln 3.",
                maximum=_MAX_EPSILON,
            ),
        ),
        serves=frozenset({"options"}),
        starting={"name": NAME, "epsilon": DEFAULT_CHOICE_EPSILON},
        # A "k" key in the spec is accepted if it agrees with the question's option count.
        build=lambda spec, k: k_rr(_spec_k(spec, k), spec["epsilon"]),
        extra_keys=("k",),
        page_module=True,
    )
)
