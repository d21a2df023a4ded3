"""Privacy-loss-distribution (PLD) accountant for the mechanisms the product samples.

Mechanisms (each a *dominating pair* (P, Q) of output laws on ℤ under add/remove of one person):

* :class:`DiscreteLaplacePair` ``(ε, k)``: discrete Laplace with scale b = k/ε, shifted by k
  (k = 1: a histogram cell or a count; k = K: a number question's grid sum, Δ = K). The loss
  ℓ(x) = ln P(x)/Q(x) = (|x − k| − |x|)/b takes the k + 1 values (k − 2x)/b, x = 0 … k, with
  P(X ≤ 0) = 1/(1 + q), P(X ≥ k) = q^k/(1 + q), P(X = x) = (1 − q)/(1 + q)·q^x (q = e^{−1/b}).
  For k = 1 this is randomized response RR_ε, which dominates every ε-DP mechanism
  (Kairouz, Oh & Viswanath 2015, Thm. 2.1), so it also serves any pure ε-DP event.
* :class:`DiscreteGaussianPair` ``(σ, k)``: N_ℤ(0, σ²) against N_ℤ(k, σ²):
  ℓ(x) = (k² − 2kx)/(2σ²), a lattice of step k/σ² (Canonne, Kamath & Steinke 2020, §2).

Why shift k dominates every shift j ≤ k (a grid sum moves by *at most* K): both noises are
log-concave on ℤ, so (P₀, P_j) has a monotone likelihood ratio, the Neyman–Pearson tests are
(randomized) thresholds, and the trade-off curve is the linear interpolation of the points
(P₀[X ≥ t], P₀[X < t − j]), t ∈ ℤ; for a fixed t the second coordinate falls as j grows, so
f_k ≤ f_j pointwise and every hockey-stick divergence of shift j is at most that of shift k
(Dong, Roth & Su 2019, Prop. 2.12). Both noises are symmetric, so (P₀, P_k) and (P_k, P₀) have
the same PLD (reflect x ↦ k − x): one direction suffices.

Composition (Dwork & Rothblum 2016; Sommer, Meiser & Mohammadi 2019; Koskela et al. 2020): the
loss of a composition is the sum of independent losses, and
    δ(ε) = Σ_ℓ ω(ℓ)·(1 − e^{ε−ℓ})₊ + ω(∞),
ω being the law of the total loss under P. ``(1 − e^{ε−ℓ})₊`` grows with ℓ, so replacing any loss
by a *larger* one (pessimistic discretization; Koskela et al. 2021; Doroshenko et al. 2022)
yields an upper bound, and so does adding mass.

The computation:

1. every distinct pair gets its exact loss lattice ℓ_j = o + j·s (tails of the discrete Gaussian
   beyond |x| ≤ R: the small-loss side is moved up to ℓ(R), the large-loss side goes to ω(∞) by
   the geometric bound Σ_{x>R} e^{−x²/2σ²} ≤ e^{−(R+1)²/2σ²}/(1 − e^{−(2R+3)/2σ²})); a very fine
   discrete-Gaussian lattice (a grid sum's) is coarsened to ≈ 0.05 standard deviations;
2. the masses are *exponentially tilted*, p̃_j = ω_j·e^{λℓ_j − K(λ)} with K(λ) = ln Σ ω_j e^{λℓ_j}
   (the cumulant generating function; K(λ) = λ·D_{λ+1}(P‖Q)). Tilting commutes with convolution,
   so the k-fold composition is the k-fold convolution of p̃, computed as one FFT power
   (repeated self-composition for free), and untilted as ω_J = p̃^{*k}_J·e^{kK(λ) − λℓ_J}. λ is the
   Chernoff/RDP-optimal order − 1 (from ρ), which centres the tilted law near the answer ε, so the
   masses that decide δ(ε) are the largest ones in the array (FFT rounding is relative to the
   largest entry);
3. different pairs are put on one grid of step h ≈ 0.05·sd/√G (G distinct pairs) and convolved by
   one FFT product (small arrays first directly). Every move of an atom — coarsening and
   gridding — is a *connect-the-dots* split onto the two neighbouring grid points that keeps both
   its P- and its Q-mass (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect the Dots:
   Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022): the original pair
   is a post-processing (merge the two atoms) of the new one, so δ(ε) can only grow, and the
   error is second order in the step (ceil rounding's is first order: k·h);
4. a support of more than 2¹⁵–2¹⁶ points keeps only a window of ±c standard deviations of the
   tilted law (cyclic convolution): the tilted mass outside it, T, is bounded by Chernoff,
   T ≤ min_θ M̃(±θ)·e^{∓θℓ_edge}, and a lost tilted mass T at losses ≥ ε adds at most
   T·e^{S − λε} to δ(ε) (S = Σ kK): that term is added. Wrapped-around mass is extra positive
   mass, which only increases δ.

Exactness: one kind of event (k identical pairs, no coarsening) is composed exactly on its
lattice; mixes are upper bounds which the tests find within 1.0003× of exact lattice convolution
(:data:`TARGET_RELATIVE_ERROR` is the documented bound, 0.4 %). Floating point: the result is
finally raised by a relative 1e-9 (covering FFT and summation rounding, ≈1e-12 relative near the
tilted peak), so it is never below the exact value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "TARGET_RELATIVE_ERROR",
    "DiscreteGaussianPair",
    "DiscreteLaplacePair",
    "Pair",
    "pld_delta",
    "pld_epsilon",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Certified bound on (ε_pld − ε_exact)/ε_exact.
TARGET_RELATIVE_ERROR = 0.004
# Grid steps as a fraction of the tilted standard deviation (connect-the-dots: error ∝ step²).
_RESOLUTION = 0.05
# Half-width of the kept window in tilted standard deviations (Chernoff tail ≈ e^{−c²/2}).
_WINDOW_SD = 14.0
# Supports up to this size are kept whole (no window, nothing lost): a window of ±c·sd is only
# safe for near-Gaussian sums; a few pure events are far from that (atoms at the ends).
_FULL_SUPPORT = 1 << 16
# The same across groups (sum of ≥ 2 near-independent groups is closer to Gaussian).
_FULL_SUPPORT_SUM = 1 << 15
# Arrays up to this size are first convolved directly with each other.
_DIRECT_SMALL = 512
# Largest array handled by direct convolution instead of FFT (both exact enough; direct is faster).
_DIRECT_MAX = 4096
# A window is widened until the tilted mass outside it is at most this (Chernoff), up to
# _MAX_WINDOW points.
_TAIL_TOLERANCE = 1e-25
_MAX_WINDOW = 1 << 21
# Tilted masses below this fraction of the largest are FFT rounding noise (module notes).
_NOISE_FLOOR = 1e-15
# Relative upward nudge covering floating-point rounding (module notes).
_ROUNDING_SLACK = 1e-9
# Tail mass of a discrete Gaussian sent to ω(∞) is at most e^{−_TAIL_NATS}·δ.
_TAIL_NATS = 40.0


@dataclass(frozen=True)
class DiscreteLaplacePair:
    """Discrete Laplace with scale k/ε shifted by k: pure ε-DP (k = 1: randomized response)."""

    epsilon: float
    shift: int = 1


@dataclass(frozen=True)
class DiscreteGaussianPair:
    """Discrete Gaussian N_ℤ(0, σ²) shifted by the integer k: ρ = k²/(2σ²)."""

    sigma: float
    shift: int = 1


Pair = DiscreteLaplacePair | DiscreteGaussianPair


# --------------------------------------------------------------------------- single pairs


@dataclass(frozen=True)
class _Lattice:
    """One pair's loss ℓ_j = offset + j·step (ascending), ln P-masses, and ω(∞)."""

    offset: float
    step: float
    log_mass: FloatArray
    inf_mass: float
    coarsened: bool = False

    def losses(self) -> FloatArray:
        return self.offset + self.step * np.arange(self.log_mass.size, dtype=np.float64)


def _laplace_lattice(pair: DiscreteLaplacePair) -> _Lattice:
    k, eps = pair.shift, pair.epsilon
    inv_b = eps / k  # 1/b
    log_q = -inv_b
    log1p_q = math.log1p(math.exp(log_q))
    # Ascending loss: j = k − x, ℓ_j = (2j − k)/b.
    x = np.arange(k, -1, -1, dtype=np.float64)
    inner = math.log(-math.expm1(log_q)) - log1p_q + x * log_q
    inner[0] = k * log_q - log1p_q  # x = k: P(X ≥ k)
    inner[-1] = -log1p_q  # x = 0: P(X ≤ 0)
    return _Lattice(offset=-eps, step=2.0 * inv_b, log_mass=inner, inf_mass=0.0)


def _gaussian_lattice(pair: DiscreteGaussianPair, log_inv_delta: float) -> _Lattice:
    sigma, k = pair.sigma, pair.shift
    two_s2 = 2.0 * sigma * sigma
    radius = k + math.ceil(sigma * math.sqrt(2.0 * (log_inv_delta + _TAIL_NATS))) + 1
    x = np.arange(radius, -radius - 1, -1, dtype=np.float64)  # ascending loss ⇔ descending x
    log_w = -(x * x) / two_s2
    # Z from the kept terms only, lowered by 1e-12 to cover the pairwise-summation rounding
    # (≲ 1e-15 relative): a smaller normalizer makes every mass larger (pessimistic).
    log_z = math.log(float(np.sum(np.exp(log_w))) * (1.0 - 1e-12))
    first = (radius + 1) ** 2 / two_s2
    tail = math.exp(-first - log_z) / -math.expm1(-(2 * radius + 3) / two_s2)
    log_mass = log_w - log_z
    log_mass[0] = np.logaddexp(log_mass[0], math.log(tail) if tail > 0 else -math.inf)
    step = k / (sigma * sigma)
    offset = (k * k - 2.0 * k * radius) / two_s2
    return _Lattice(offset=offset, step=step, log_mass=log_mass, inf_mass=tail)


def _lattice(pair: Pair, log_inv_delta: float) -> _Lattice:
    if isinstance(pair, DiscreteLaplacePair):
        return _laplace_lattice(pair)
    return _gaussian_lattice(pair, log_inv_delta)


def _coarsen(lat: _Lattice, n: int, pessimistic: bool = True) -> _Lattice:
    """The same pair on a lattice n times coarser, by connect-the-dots (:func:`_split`)."""
    if n <= 1:
        return lat
    step = lat.step * n
    rel_loss = lat.losses() - lat.offset  # ≥ 0; the new lattice keeps the offset
    low, a, b = _split(rel_loss, step, pessimistic)
    peak = float(np.max(lat.log_mass))
    w = np.exp(lat.log_mass - peak)
    size = int(low[-1]) + 2
    mass = np.bincount(low, weights=w * a, minlength=size)
    mass += np.bincount(low + 1, weights=w * b, minlength=size)
    with np.errstate(divide="ignore"):
        log_mass = np.log(mass) + peak
    return _Lattice(lat.offset, step, log_mass, lat.inf_mass, coarsened=True)


@lru_cache(maxsize=1024)
def _prepared(pair: Pair, log_inv_delta: float, fine: float, pessimistic: bool) -> _Lattice:
    """The pair's lattice; a discrete Gaussian's coarsened (connect-the-dots) to steps of about
    ``fine`` standard deviations of its loss under P. Cached: a survey's history is charged
    again and again."""
    lat = _lattice(pair, log_inv_delta)
    if isinstance(pair, DiscreteLaplacePair) or lat.log_mass.size <= 64:
        # K + 1 points at most, and the atoms at ±ε decide small δ: never coarsened.
        return lat
    peak = float(np.max(lat.log_mass))
    _, var = _moments(np.exp(lat.log_mass - peak), lat.step)
    merge = int(fine * math.sqrt(var) / lat.step)
    return _coarsen(lat, merge, pessimistic) if merge > 1 else lat


def _rho(pair: Pair) -> float:
    if isinstance(pair, DiscreteLaplacePair):
        return 0.5 * pair.epsilon * pair.epsilon
    return pair.shift * pair.shift / (2.0 * pair.sigma * pair.sigma)


# --------------------------------------------------------------------------- tilted arrays


@dataclass
class _Tilted:
    """A tilted (sub-)measure on ℓ_i = offset + i·step: ω_i = mass_i·e^{log_scale − λℓ_i}."""

    offset: float
    step: float
    mass: FloatArray
    log_scale: float
    lost: float  # tilted mass dropped outside the windows (Chernoff bounds)
    inf_mass: float  # ω(∞)
    mean: float  # of the tilted loss (k × one event's)
    var: float

    def losses(self) -> FloatArray:
        return self.offset + self.step * np.arange(self.mass.size, dtype=np.float64)


def _tilt(lat: _Lattice, lam: float) -> tuple[FloatArray, float]:
    """p̃ = ω·e^{λℓ − K(λ)} and K(λ) = ln Σ ω e^{λℓ}."""
    w = lat.log_mass + lam * lat.losses()
    top = float(np.max(w))
    p = np.exp(w - top)
    total = float(np.sum(p))
    return p / total, top + math.log(total)


def _fast_size(n: int) -> int:
    """Smallest 2^a·3^b ≥ n (pocketfft is fastest on smooth sizes)."""
    best = 1 << max(0, (n - 1).bit_length())
    p3 = 1
    while p3 < best:
        p2 = p3
        while p2 < n:
            p2 *= 2
        best = min(best, p2)
        p3 *= 3
    return best


def _moments(p: FloatArray, step: float) -> tuple[float, float]:
    """Mean and variance of the index·step under the (normalized) weights p."""
    j = np.arange(p.size, dtype=np.float64) * step
    total = float(np.sum(p))
    mean = float(np.dot(p, j)) / total
    var = float(np.dot(p, (j - mean) ** 2)) / total
    return mean, var


def _chernoff_outside(p: FloatArray, step: float, k: int, lo: float, hi: float, sd: float) -> float:
    """Bound on the k-fold convolution's mass of index·step outside [lo, hi] (Chernoff)."""
    j = np.arange(p.size, dtype=np.float64) * step
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    best_hi = best_lo = math.inf
    for scale in (0.02, 0.05, 0.15, 0.5, 1.0, 2.0):
        theta = scale * _WINDOW_SD / max(sd, 1e-300)
        up = k * float(np.logaddexp.reduce(log_p + theta * j)) - theta * hi
        down = k * float(np.logaddexp.reduce(log_p - theta * j)) + theta * lo
        best_hi, best_lo = min(best_hi, up), min(best_lo, down)
    return math.exp(min(best_hi, 700.0)) + math.exp(min(best_lo, 700.0))


def _power(p: FloatArray, k: int, mean: float, var: float) -> tuple[FloatArray, int, float]:
    """k-fold self-convolution of p (indices from 0; one event's index mean and variance
    given): (window, first index, bound on the tilted mass outside the window)."""
    full = k * (p.size - 1) + 1
    if k == 1:
        return p, 0, 0.0
    sd = math.sqrt(k * var)
    half = math.ceil(_WINDOW_SD * sd) + 2
    if full <= max(2 * half + 1, _FULL_SUPPORT):
        if full <= _DIRECT_MAX and p.size <= 64:
            out = p
            for _ in range(k - 1):
                out = np.convolve(out, p)
            return out, 0, 0.0
        size = _fast_size(full)
        spec = np.fft.rfft(p, size) ** k
        out = np.fft.irfft(spec, size)[:full]
        return np.maximum(out, 0.0), 0, 0.0
    while True:  # widen until the Chernoff bound on the mass outside is negligible
        start = max(0, math.floor(k * mean) - half)
        width = min(full - start, 2 * half + 1)
        lost = _chernoff_outside(p, 1.0, k, start - 0.5, start + width - 0.5, sd)
        if lost <= _TAIL_TOLERANCE or width >= full or 2 * half + 1 > _MAX_WINDOW:
            break
        half = int(half * 1.6) + 1
    size = _fast_size(max(width, p.size))
    spec = np.fft.rfft(p, size) ** k
    cyc = np.maximum(np.fft.irfft(spec, size), 0.0)
    out = np.roll(cyc, -(start % size))[:width]
    return out, start, 0.0 if width >= full else lost


def _group(lat: _Lattice, k: int, lam: float) -> _Tilted:
    p, log_k = _tilt(lat, lam)
    mean, var = _moments(p, 1.0)
    out, start, lost = _power(p, k, mean, var)
    return _Tilted(
        offset=k * lat.offset + start * lat.step,
        step=lat.step,
        mass=out,
        log_scale=k * log_k,
        lost=lost,
        inf_mass=k * lat.inf_mass,
        mean=k * (lat.offset + mean * lat.step),
        var=k * var * lat.step * lat.step,
    )


def _split(
    loss: FloatArray, h: float, pessimistic: bool = True
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Connect-the-dots split of atoms at ``loss`` onto the grid i·h (Doroshenko et al. 2022).

    An atom ω at ℓ ∈ [ℓ₋, ℓ₊] (neighbouring grid points) becomes a at ℓ₋ and b at ℓ₊ with
    a + b = ω and a·e^{−ℓ₋} + b·e^{−ℓ₊} = ω·e^{−ℓ}: both P and Q masses are kept, and merging the
    two atoms gives back the original pair — it is a post-processing of the new pair, which
    therefore dominates it (every δ(ε) can only grow). a/ω = (e^{ℓ₊−ℓ} − 1)/(e^{ℓ₊−ℓ₋} − 1).
    Returns (lower index, fraction a/ω, fraction b/ω). ``pessimistic=False``: every atom goes
    down to ℓ₋ instead (an *optimistic* discretization — a lower bound, for the certificate).
    """
    low = np.floor(loss / h)
    frac_up = loss / h - low  # in [0, 1)
    # Float safety: never let ℓ₊ fall below ℓ (a rounding of loss/h could do it).
    low = np.where((low + 1.0) * h < loss, low + 1.0, low)
    frac_up = np.clip(loss / h - low, 0.0, 1.0)
    if not pessimistic:
        low = np.floor(loss / h)
        low = np.where(low * h > loss, low - 1.0, low)
        return low.astype(np.int64), np.ones_like(loss), np.zeros_like(loss)
    a = np.expm1((1.0 - frac_up) * h) / math.expm1(h)
    a = np.clip(a, 0.0, 1.0)
    return low.astype(np.int64), a, 1.0 - a


def _to_grid(g: _Tilted, h: float, lam: float, pessimistic: bool = True) -> tuple[FloatArray, int]:
    """Put a group's tilted masses on the grid ℓ = i·h by connect-the-dots (see :func:`_split`);
    a tilted mass moved from ℓ to ℓ′ is multiplied by e^{λ(ℓ′ − ℓ)} (the untilted mass moves)."""
    loss = g.losses()
    low, a, b = _split(loss, h, pessimistic)
    first = int(low[0])
    rel = low - first
    down = g.mass * a * np.exp(lam * (low * h - loss))
    up = g.mass * b * np.exp(lam * ((low + 1) * h - loss))
    size = int(rel[-1]) + 2
    mass = np.bincount(rel, weights=down, minlength=size).astype(np.float64)
    mass += np.bincount(rel + 1, weights=up, minlength=size)
    return mass, first


def _convolve_all(
    arrays: list[tuple[FloatArray, int]], mean: float, sd: float
) -> tuple[FloatArray, int, float, float]:
    """Convolve the gridded groups inside a ±c·sd window of their sum (cyclic FFT); ``mean`` and
    ``sd`` of the sum's index (relative to the first indices), known from the groups."""
    first = sum(f for _, f in arrays)
    mean -= first
    arrays = _premerge(arrays)
    full = sum(a.size - 1 for a, _ in arrays) + 1
    half = math.ceil(_WINDOW_SD * sd) + 2
    above = below = 0.0
    while True:  # widen until the Chernoff bounds on the mass outside are negligible
        if full <= max(2 * half + 1, _FULL_SUPPORT_SUM):
            start, width, above, below = 0, full, 0.0, 0.0
            break
        start = max(0, math.floor(mean) - half)
        width = min(full - start, 2 * half + 1)
        above, below = _chernoff_sum(arrays, start - 0.5, start + width - 0.5, sd)
        if above + below <= _TAIL_TOLERANCE or 2 * half + 1 > _MAX_WINDOW:
            break
        half = int(half * 1.6) + 1
    size = _fast_size(max(width, max(a.size for a, _ in arrays)))
    spec = np.ones(size // 2 + 1, dtype=np.complex128)
    for a, _ in arrays:
        spec *= np.fft.rfft(a, size)
    cyc = np.maximum(np.fft.irfft(spec, size), 0.0)
    out = np.roll(cyc, -(start % size))[:width]
    return out, first + start, above, below


def _premerge(arrays: list[tuple[FloatArray, int]]) -> list[tuple[FloatArray, int]]:
    """Convolve small arrays directly (cheap, and exact up to rounding) so that fewer large
    FFTs are needed; first indices add."""
    small = sorted((x for x in arrays if x[0].size <= _DIRECT_SMALL), key=lambda x: x[0].size)
    large = [a for a in arrays if a[0].size > _DIRECT_SMALL]
    while len(small) > 1:
        (a, fa), (b, fb) = small.pop(0), small.pop(0)
        merged = (np.convolve(a, b), fa + fb)
        (large if merged[0].size > _DIRECT_SMALL else small).append(merged)
        small.sort(key=lambda x: x[0].size)
    return large + small


def _chernoff_sum(
    arrays: list[tuple[FloatArray, int]], lo: float, hi: float, sd: float
) -> tuple[float, float]:
    """Chernoff bounds on the tilted mass of the sum above ``hi`` and below ``lo``."""
    best_hi = best_lo = math.inf
    logs = []
    for a, _ in arrays:
        with np.errstate(divide="ignore"):
            logs.append((np.log(a), np.arange(a.size, dtype=np.float64)))
    for scale in (0.02, 0.05, 0.15, 0.5, 1.0, 2.0):
        theta = scale * _WINDOW_SD / max(sd, 1e-300)
        up = sum(float(np.logaddexp.reduce(lp + theta * j)) for lp, j in logs) - theta * hi
        down = sum(float(np.logaddexp.reduce(lp - theta * j)) for lp, j in logs) + theta * lo
        best_hi, best_lo = min(best_hi, up), min(best_lo, down)
    return math.exp(min(best_hi, 700.0)), math.exp(min(best_lo, 700.0))


# --------------------------------------------------------------------------- composition


@dataclass(frozen=True)
class _Composed:
    """ω_i = mass_i·e^{log_scale − λℓ_i} on ℓ_i = offset + i·step, plus the extra terms."""

    loss: FloatArray
    log_omega: FloatArray  # ln ω_i (−∞ for empty cells)
    lam: float
    log_scale: float
    lost: float
    inf_mass: float
    exact: bool = False  # no rounding happened (one group on its own lattice)
    lost_low: float = 0.0  # tilted mass lost below loss[0] (cyclic wrap of the lower tail)


def _compose(
    groups: Mapping[Pair, int],
    log_inv_delta: float,
    lam: float,
    fine: float,
    pessimistic: bool = True,
) -> _Composed:
    """Compose the groups; ``fine`` scales the resolution (grid steps are ``fine``·sd).
    ``pessimistic=False``: the optimistic twin (losses rounded down, lost and ∞ masses dropped),
    a lower bound on the exact δ(ε), used only to certify the pessimistic result."""
    n_groups = len(groups)
    tilted: list[_Tilted] = []
    exact = n_groups == 1
    for pair, k in groups.items():
        lat = _prepared(pair, log_inv_delta, fine, pessimistic)
        exact = exact and not lat.coarsened
        tilted.append(_group(lat, k, lam))
    lost_low = 0.0  # tilted mass below the final window: it only counts for ε below the window
    if n_groups == 1:
        g = tilted[0]
        mass, offset, step, lost = g.mass, g.offset, g.step, g.lost
    else:
        total_sd = math.sqrt(math.fsum(g.var for g in tilted))
        h = min(fine * total_sd / math.sqrt(n_groups), min(g.step for g in tilted) * 4096)
        arrays = [_to_grid(g, h, lam, pessimistic) for g in tilted]
        mean = math.fsum(g.mean for g in tilted) / h
        sd = total_sd / h + 1.0
        mass, first, lost_final, lost_low = _convolve_all(arrays, mean, sd)
        offset, step = first * h, h
        # A group's lost tilted mass would have gained at most e^{λh} on the grid.
        lost = sum(g.lost for g in tilted) * math.exp(lam * h) + lost_final
    loss = offset + step * np.arange(mass.size, dtype=np.float64)
    log_scale = sum(g.log_scale for g in tilted)
    # Floating-point allowance for the FFTs (relative to the largest tilted entry). Entries below
    # the FFT noise floor are rounding noise; untilted by e^{S − λℓ} at very low losses they
    # would become huge. They are zeroed and their total (≤ size·floor) joins the allowance.
    top = float(np.max(mass))
    floor = _NOISE_FLOOR * top
    mass = np.where(mass < floor, 0.0, mass)
    lost += 1e-13 * top * (1 + n_groups) * math.log2(max(2, mass.size)) + floor * mass.size
    with np.errstate(divide="ignore"):
        log_omega = np.log(mass) + log_scale - lam * loss
    inf_mass = sum(g.inf_mass for g in tilted)
    if not pessimistic:
        lost, inf_mass, lost_low = 0.0, 0.0, 0.0
    return _Composed(loss, log_omega, lam, log_scale, lost, inf_mass, exact, lost_low)


def _delta_terms(c: _Composed) -> tuple[FloatArray, FloatArray]:
    """ln A_j = ln Σ_{i>j} ω_i and ln B_j = ln Σ_{i>j} ω_i e^{−ℓ_i} (−∞ past the end)."""
    rev_a = np.logaddexp.accumulate(c.log_omega[::-1])[::-1]
    rev_b = np.logaddexp.accumulate((c.log_omega - c.loss)[::-1])[::-1]
    log_a = np.append(rev_a[1:], -np.inf)
    log_b = np.append(rev_b[1:], -np.inf)
    return log_a, log_b


def _delta_at(c: _Composed, log_a: float, log_b: float, eps: float) -> float:
    """δ(ε) = A − e^ε·B + lost·e^{S − λε} + ω(∞), for ε in the segment of (A, B)."""
    main = 0.0
    if log_a > -math.inf:
        # A ≤ 1 truly; min(·, 700) only keeps a garbage-inflated value finite (still > δ).
        main = math.exp(min(log_a, 700.0)) * -math.expm1(min(0.0, eps + log_b - log_a))
    lost = c.lost + (c.lost_low if eps < float(c.loss[0]) else 0.0)
    extra = lost * math.exp(min(700.0, c.log_scale - c.lam * eps)) if lost > 0 else 0.0
    return main + extra + c.inf_mass


def _solve(c: _Composed, delta: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_a, log_b = _delta_terms(c)
        total_a = float(np.logaddexp.reduce(c.log_omega))
        total_b = float(np.logaddexp.reduce(c.log_omega - c.loss))
    loss = c.loss
    j0 = int(np.searchsorted(loss, 0.0, side="right")) - 1
    a0, b0 = (float(log_a[j0]), float(log_b[j0])) if j0 >= 0 else (total_a, total_b)
    if _delta_at(c, a0, b0, 0.0) <= delta:
        return 0.0
    # Last grid point ≥ 0 whose δ exceeds the target: the answer lies in the next segment.
    lo_idx = j0
    hi_idx = loss.size - 1
    if _delta_at(c, float(log_a[hi_idx]), float(log_b[hi_idx]), float(loss[hi_idx])) > delta:
        return _beyond(c, float(loss[hi_idx]), delta)
    while hi_idx - lo_idx > 1:  # invariant: δ(max(ℓ_lo, 0)) > target ≥ δ(ℓ_hi)
        mid = (lo_idx + hi_idx) // 2
        if _delta_at(c, float(log_a[mid]), float(log_b[mid]), float(loss[mid])) > delta:
            lo_idx = mid
        else:
            hi_idx = mid
    if lo_idx < 0 or loss[lo_idx] < 0:
        lower, la, lb = 0.0, a0, b0
    else:
        lower, la, lb = float(loss[lo_idx]), float(log_a[lo_idx]), float(log_b[lo_idx])
    upper = float(loss[hi_idx])
    for _ in range(100):  # bisection inside the segment (δ is continuous and decreasing there)
        if upper - lower <= 1e-13 * max(1.0, upper):
            break
        mid_eps = 0.5 * (lower + upper)
        if _delta_at(c, la, lb, mid_eps) > delta:
            lower = mid_eps
        else:
            upper = mid_eps
    return upper


def _beyond(c: _Composed, start: float, delta: float) -> float:
    """Past the window only the lost-mass and ∞ terms remain: solve them (or ∞)."""
    if c.inf_mass >= delta or c.lost <= 0:
        return math.inf if c.inf_mass >= delta else start
    # lost·e^{S − λε} = δ − ω(∞)  ⇒  ε = (S + ln lost − ln(δ − ω∞))/λ
    return max(start, (c.log_scale + math.log(c.lost) - math.log(delta - c.inf_mass)) / c.lam)


def _plan(groups: Mapping[Pair, int], delta: float) -> tuple[float, float]:
    """Tilt λ and a first upper estimate of ε from ρ (zCDP, Bun & Steinke 2016) and Σε."""
    rho = math.fsum(_rho(p) * k for p, k in groups.items())
    log_inv = -math.log(delta)
    lam = min(1e4, max(0.05, math.sqrt(log_inv / max(rho, 1e-300))))
    est = rho + 2.0 * math.sqrt(rho * log_inv)
    if all(isinstance(p, DiscreteLaplacePair) for p in groups):
        est = min(est, math.fsum(p.epsilon * k for p, k in groups.items()))  # type: ignore[union-attr]
    return lam, est


def _check(groups: Mapping[Pair, int], delta: float) -> None:
    if not 0.0 < delta < 1.0:
        raise ValueError("delta must lie in (0, 1)")
    for pair, k in groups.items():
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"multiplicity of {pair!r} must be a positive int")
        if not isinstance(pair.shift, int) or pair.shift < 1:
            raise ValueError(f"shift of {pair!r} must be a positive int")
        value = pair.epsilon if isinstance(pair, DiscreteLaplacePair) else pair.sigma
        if not 0.0 < value < math.inf:
            raise ValueError(f"{pair!r}: parameter must be finite and > 0")


def pld_epsilon(groups: Mapping[Pair, int], delta: float) -> float:
    """Smallest ε (rounded up) with δ(ε) ≤ δ for the composition of ``groups`` (pair → count).

    Never below the exact ε of the composition; at most (1 + TARGET_RELATIVE_ERROR)× above it
    (module notes). ``math.inf`` if the losses are out of the float range.
    """
    _check(groups, delta)
    if not groups:
        return 0.0
    lam, est = _plan(groups, delta)
    if not math.isfinite(est) or est > 1e12:
        return math.inf
    composed = _compose(groups, -math.log(delta), lam, _RESOLUTION)
    eps = _solve(composed, delta)
    return eps * (1.0 + _ROUNDING_SLACK) if math.isfinite(eps) else eps


def pld_delta(groups: Mapping[Pair, int], epsilon: float, delta_hint: float = 1e-5) -> float:
    """Upper bound on δ(ε) of the composition (the same discretization as :func:`pld_epsilon`
    at ``delta_hint``). For tests and plots."""
    _check(groups, delta_hint)
    lam, _ = _plan(groups, delta_hint)
    c = _compose(groups, -math.log(delta_hint), lam, _RESOLUTION)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_a, log_b = _delta_terms(c)
    j = int(np.searchsorted(c.loss, epsilon, side="right")) - 1
    if j < 0:
        la = float(np.logaddexp.reduce(c.log_omega))
        lb = float(np.logaddexp.reduce(c.log_omega - c.loss))
    else:
        la, lb = float(log_a[j]), float(log_b[j])
    return _delta_at(c, la, lb, epsilon)
