"""Post-stratification: a population figure from per-stratum estimates and known shares.

Pure (stdlib ``math`` only). Formula and sources: docs/formulas.md#post-stratification.

With strata h, known population shares W_h (Σ W_h = 1) and per-stratum estimates θ̂_h with
variances V_h, estimated independently (disjoint respondents),

    θ̂_ps = Σ_h W_h·θ̂_h,        Var θ̂_ps = Σ_h W_h²·V_h

(Holt & Smith 1979, "Post stratification", JRSS A 142:33–46; Lohr, *Sampling: Design and
Analysis*, 2nd ed., §4.4). The variance is the one conditional on the achieved stratum sizes,
which is what the per-stratum variances already are. A stratum with W_h = 0 does not enter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["poststratified"]


def poststratified(
    values: Sequence[float],
    std_errors: Sequence[float | None],
    weights: Sequence[float],
) -> tuple[float, float | None]:
    """``(Σ W_h·θ̂_h, √(Σ W_h²·SE_h²))``; the SE is None when a stratum with W_h > 0 has none.

    ``values``, ``std_errors`` and ``weights`` are aligned by stratum; the weights are taken as
    given (the caller checks they sum to 1)."""
    if not (len(values) == len(std_errors) == len(weights)):
        raise ValueError("values, std_errors and weights must have the same length")
    estimate = 0.0
    variance: float | None = 0.0
    for value, se, weight in zip(values, std_errors, weights, strict=True):
        if weight == 0.0:
            continue
        estimate += weight * value
        if se is None or variance is None:
            variance = None
        else:
            variance += weight * weight * se * se
    return estimate, (None if variance is None else math.sqrt(variance))
