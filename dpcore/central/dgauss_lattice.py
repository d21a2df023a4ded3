"""A wide discrete Gaussian's coarsened loss lattice in time independent of σ (issue 21 item 11).

The PLD accountant (:mod:`dpcore.central.pld`) coarsens the loss lattice of the pair
(N_ℤ(0, σ²), N_ℤ(k, σ²)) by connect-the-dots to steps of ``fine`` loss standard deviations,
i.e. it merges blocks of n ≈ ``fine``·σ consecutive integers x. Building the full lattice first
costs O(σ): 2R + 1 ≈ 20σ points (σ ≈ 7·10⁵: 1.4·10⁷ points, 1–3 s per distinct event, inside
the budget lock). This module computes the *same* coarse masses from O(n + cells) work.

The loss is linear in x, so the lattice index j = R − x falls into block c = ⌊j/n⌋ at offset
r = j − cn, and the connect-the-dots fractions a_r = (e^{(1−r/n)H} − 1)/(e^H − 1), b_r = 1 − a_r
(H = n·k/σ², the coarse step) are the same for every block. With X_c = R − cn the block's first x,

    Σ_{r<n} e^{−(X_c − r)²/2σ²}·a_r = e^{−X_c²/2σ²} · Σ_r a_r g_r e^{u_c s_r},
    g_r = e^{−r²/2σ²},  s_r = r/n ∈ [0, 1),  u_c = X_c·n/σ²,

and Σ_r a_r g_r e^{u s_r} = Σ_m u^m/m!·M_m with the moments M_m = Σ_r a_r g_r s_r^m, computed once
(O(n·m)). |u_c| ≤ R·n/σ² ≈ ``fine``·√(2(ln 1/δ + 40)) (≈ 0.5 at δ = 10⁻⁵), so the series is cut
once |u|^m/m!·e^{2|u|} < 10⁻¹⁸: its error is below double rounding (the full-lattice code's own
sums have errors of the same order, covered by the accountant's 10⁻⁹ rounding slack).
Every other choice — radius, normalizer lowered by 10⁻¹², far tails to ω(∞) and to the
smallest loss — is the full-lattice code's; ``tests/dpcore/central/test_dgauss_lattice.py``
checks the masses against it.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Largest block merged by the series (moments cost O(n) each); wider Gaussians use blocks of this
#: size (a finer coarse lattice — still sound, only more cells).
MAX_BLOCK = 1 << 18
#: Most coarse cells built (σ beyond ≈ 10¹⁰: the PLD declares itself inapplicable instead).
MAX_CELLS = 1 << 21
# Series cut: |u|^m/m!·e^{2|u|} below this (relative to the block sums).
_SERIES_TOLERANCE = 1e-18


def tail_radius(sigma: float, shift: int, log_inv_delta: float, tail_nats: float) -> int:
    """R: the lattice keeps |x| ≤ R (mass beyond it is e^{−tail_nats}·δ at most)."""
    return shift + math.ceil(sigma * math.sqrt(2.0 * (log_inv_delta + tail_nats))) + 1


def _moments(weights: FloatArray, s: FloatArray, terms: int) -> FloatArray:
    out = np.empty(terms, dtype=np.float64)
    p = weights.copy()
    for m in range(terms):
        out[m] = float(np.sum(p))
        p *= s
    return out


def _series(moments: FloatArray, u: FloatArray) -> FloatArray:
    """Σ_m u^m/m!·M_m for every u (Horner)."""
    total = np.zeros_like(u)
    for m in range(moments.size - 1, -1, -1):
        total = total * u / (m + 1) + moments[m]
    return total


def _terms(u_max: float) -> int:
    m, term = 1, u_max
    bound = math.exp(2.0 * u_max)
    while term * bound >= _SERIES_TOLERANCE and m < 200:
        m += 1
        term *= u_max / m
    return m + 1


def coarse_gaussian_lattice(
    sigma: float, shift: int, log_inv_delta: float, block: int, tail_nats: float
) -> tuple[float, float, FloatArray, float] | None:
    """(offset, coarse step, ln masses, ω(∞)) of the pair (N_ℤ(0, σ²), N_ℤ(shift, σ²)) coarsened
    in blocks of ``block`` lattice points; None if that would take more than :data:`MAX_CELLS`
    cells."""
    two_s2 = 2.0 * sigma * sigma
    radius = tail_radius(sigma, shift, log_inv_delta, tail_nats)
    n_points = 2 * radius + 1
    n = block
    full_blocks, rest = divmod(n_points, n)
    cells = (n_points - 1) // n + 2
    if cells > MAX_CELLS:
        return None
    step = shift / (sigma * sigma)
    coarse = step * n
    r = np.arange(n, dtype=np.float64)
    s = r / n
    a = np.clip(np.expm1((1.0 - s) * coarse) / math.expm1(coarse), 0.0, 1.0)
    b = 1.0 - a
    g = np.exp(-(r * r) / two_s2)
    x_first = radius - n * np.arange(full_blocks, dtype=np.float64)  # X_c of each full block
    u = x_first * n / (sigma * sigma)
    terms = _terms(float(np.max(np.abs(u))) if u.size else 0.0)
    lead = -(x_first * x_first) / two_s2
    with np.errstate(divide="ignore"):
        log_low = lead + np.log(_series(_moments(a * g, s, terms), u))  # → cell c
        log_high = lead + np.log(_series(_moments(b * g, s, terms), u))  # → cell c + 1
    if rest:  # the last, partial block: directly
        x = radius - n * full_blocks - r[:rest]
        w = -(x * x) / two_s2
        with np.errstate(divide="ignore"):
            log_low = np.append(log_low, np.logaddexp.reduce(w + np.log(a[:rest])))
            log_high = np.append(log_high, np.logaddexp.reduce(w + np.log(b[:rest])))
    log_mass = np.full(cells, -np.inf)
    log_mass[: log_low.size] = log_low
    log_mass[1 : log_high.size + 1] = np.logaddexp(log_mass[1 : log_high.size + 1], log_high)
    # Z from the kept terms (a_r + b_r = 1), lowered by 1e-12 as the full-lattice code does.
    log_z = float(np.logaddexp.reduce(np.logaddexp(log_low, log_high))) + math.log1p(-1e-12)
    first = (radius + 1) ** 2 / two_s2
    tail = math.exp(-first - log_z) / -math.expm1(-(2 * radius + 3) / two_s2)
    log_mass -= log_z
    if tail > 0:  # the small-loss tail joins the smallest loss (x = R: cell 0, a_0 = 1)
        log_mass[0] = np.logaddexp(log_mass[0], math.log(tail))
    offset = (shift * shift - 2.0 * shift * radius) / two_s2
    return offset, coarse, log_mass, tail
