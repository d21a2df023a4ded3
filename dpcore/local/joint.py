"""The joint distribution of k binary randomized reports (a randomized multi-select):
docs/formulas.md#joint.

Each option j is reported through its own randomizer, independently of the others given the true
answers, with ``P(report yes | true t) = c_j·t + d_j``. Its 2×2 misclassification matrix (rows:
reported no/yes, columns: true no/yes) is ``M_j = [[1 − d_j, 1 − c_j − d_j], [d_j, c_j + d_j]]``.
Because the randomizations are independent, the 2^k report patterns follow

    λ = (M_1 ⊗ M_2 ⊗ … ⊗ M_k) · π,

with π the true joint over the 2^k patterns (the misclassification form of randomized response,
van den Hout & van der Heijden 2002, with a Kronecker product for independent devices). The moment
estimator inverts it factor by factor, ``π̂ = (⊗ M_j⁻¹) λ̂`` with ``λ̂`` the observed pattern
shares, and ``Cov(π̂) = (⊗ M_j⁻¹) · (diag λ̂ − λ̂λ̂ᵀ)/n · (⊗ M_j⁻¹)ᵀ`` (multinomial λ̂).

Pattern index: option j (0-based, in the given order) is bit ``k − 1 − j`` of the index, so option
0 is the most significant bit and the Kronecker order matches. Summing π̂ over the patterns with
bit j set gives ``(λ̂_j − d_j)/c_j`` exactly (each column of M_j sums to 1), the per-option
estimate; ``estimate`` is π̂ projected onto the simplex (Euclidean, Duchi et al. 2008).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dpcore.errors import ArgumentError
from dpcore.local.estimators import project_to_simplex
from dpcore.stats import z_value

#: The most options a joint is computed for (2^6 = 64 cells; the covariance is 64 × 64).
MAX_JOINT_OPTIONS = 6

Matrix = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class JointEstimate:
    """The true joint over the 2^k patterns: ``estimate_unclipped`` = π̂ (sums to 1, may leave
    [0, 1]); ``estimate`` = its simplex projection; ``std_error``/``ci_*`` from ``covariance``
    (Wald, around π̂; not clipped); ``marginals`` = Σ over the patterns with option j of π̂."""

    n: int
    confidence: float
    patterns: tuple[tuple[bool, ...], ...]
    reported: tuple[int, ...]
    estimate_unclipped: tuple[float, ...]
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    marginals: tuple[float, ...]


def pattern_index(selected: Sequence[bool]) -> int:
    """The index of a report pattern: option j is bit ``k − 1 − j`` (option 0 most significant)."""
    index = 0
    for bit in selected:
        index = 2 * index + (1 if bit else 0)
    return index


def patterns(k: int) -> tuple[tuple[bool, ...], ...]:
    """All 2^k patterns in index order (``patterns(k)[pattern_index(p)] == p``)."""
    return tuple(tuple(bool((i >> (k - 1 - j)) & 1) for j in range(k)) for i in range(2**k))


def misclassification(c: float, d: float) -> Matrix:
    """``M = [[1 − d, 1 − c − d], [d, c + d]]``: column t is the report distribution given t."""
    return np.array([[1.0 - d, 1.0 - c - d], [d, c + d]], dtype=np.float64)


def kronecker_inverse(designs: Sequence[tuple[float, float]]) -> Matrix:
    """``⊗ M_j⁻¹`` (the inverse of a Kronecker product is the product of the inverses);
    ``M_j⁻¹ = [[c + d, c + d − 1], [−d, 1 − d]]/c``."""
    out: Matrix = np.ones((1, 1), dtype=np.float64)
    for c, d in designs:
        inverse = np.array([[c + d, c + d - 1.0], [-d, 1.0 - d]], dtype=np.float64) / c
        out = np.asarray(np.kron(out, inverse), dtype=np.float64)
    return out


def _check(designs: Sequence[tuple[float, float]], counts: Sequence[int]) -> int:
    k = len(designs)
    if not 1 <= k <= MAX_JOINT_OPTIONS:
        raise ArgumentError("designs", f"need 1 to {MAX_JOINT_OPTIONS} options, got {k}")
    for c, d in designs:
        if not (math.isfinite(c) and math.isfinite(d) and c > 0 and d >= 0 and c + d <= 1):
            raise ArgumentError("designs", "each option needs 0 < c, 0 ≤ d, c + d ≤ 1")
    if len(counts) != 2**k:
        raise ArgumentError("counts", f"need {2**k} pattern counts, got {len(counts)}")
    if any(int(x) != x or x < 0 for x in counts):
        raise ArgumentError("counts", "counts must be non-negative integers")
    return k


def estimate_joint(
    designs: Sequence[tuple[float, float]],
    counts: Sequence[int],
    *,
    confidence: float = 0.95,
) -> JointEstimate | None:
    """The joint of k randomized binary reports from the pattern counts (module docstring).

    ``designs[j] = (c_j, d_j)``; ``counts[i]`` = respondents who reported pattern i
    (:func:`pattern_index`). ``None`` when no respondent answered (n = 0).
    """
    k = _check(designs, counts)
    z = z_value(confidence)
    n = int(sum(counts))
    if n == 0:
        return None
    shares = np.asarray(counts, dtype=np.float64) / n
    inverse = kronecker_inverse(designs)
    pi = inverse @ shares
    cov_reports = (np.diag(shares) - np.outer(shares, shares)) / n
    cov = inverse @ cov_reports @ inverse.T
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    cells = patterns(k)
    marginals = tuple(float(sum(pi[i] for i, p in enumerate(cells) if p[j])) for j in range(k))
    return JointEstimate(
        n=n,
        confidence=float(confidence),
        patterns=cells,
        reported=tuple(int(x) for x in counts),
        estimate_unclipped=tuple(float(x) for x in pi),
        estimate=project_to_simplex([float(x) for x in pi]),
        std_error=tuple(float(x) for x in se),
        ci_low=tuple(float(p - z * s) for p, s in zip(pi, se, strict=True)),
        ci_high=tuple(float(p + z * s) for p, s in zip(pi, se, strict=True)),
        covariance=tuple(tuple(float(x) for x in row) for row in cov),
        marginals=marginals,
    )
