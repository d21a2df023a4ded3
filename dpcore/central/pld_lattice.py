"""One pair's privacy-loss lattice and its tilted self-compositions (:mod:`dpcore.central.pld`).

Split out of :mod:`dpcore.central.pld` (module size): the pairs, the tuning constants, one pair's
loss lattice, its pessimistic coarsening, and the exponentially tilted k-fold compositions
(FFT / direct convolution with Chernoff-widened windows). The formulas and the soundness argument
are in :mod:`dpcore.central.pld`'s notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from dpcore.central import dgauss_lattice

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Documented tolerance on (ε_pld − ε_exact)/ε_exact (checked by tests, not proven).
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
# Coarsening blocks of at least this many lattice points are built by dgauss_lattice (O(block +
# cells) instead of O(σ)); below it the full lattice is small (≤ 20·block/fine points).
_FAST_MIN_BLOCK = 32
# Cells one gridded group may span (8 bytes each): beyond it the PLD accountant declines.
_MAX_GRID_CELLS = 50_000_000


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
    radius = dgauss_lattice.tail_radius(sigma, k, log_inv_delta, _TAIL_NATS)
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
    wide = isinstance(pair, DiscreteGaussianPair) and fine * pair.sigma >= _FAST_MIN_BLOCK
    if isinstance(pair, DiscreteGaussianPair) and wide and pessimistic:
        # Wide Gaussian: the coarse lattice straight from block moments (dgauss_lattice), in
        # time independent of σ — the full lattice has ≈ 20σ points. (The optimistic twin, for
        # tests only, still builds the full lattice.)
        block = min(int(fine * pair.sigma), dgauss_lattice.MAX_BLOCK)
        built = dgauss_lattice.coarse_gaussian_lattice(
            pair.sigma, pair.shift, log_inv_delta, block, _TAIL_NATS
        )
        if built is None:
            raise ValueError(f"{pair!r}: σ too wide for the PLD lattice")
        offset, step, log_mass, inf_mass = built
        return _Lattice(offset, step, log_mass, inf_mass, coarsened=True)
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
    # A group whose losses are off the float range or would need more grid cells than memory
    # holds (a shift of thousands at ε in the hundreds of thousands) cannot be gridded: the
    # accountant is "not applicable" there (events_epsilon answers ∞, the others decide). Without
    # this check an overflowed index was cast to int64 and the grid built from garbage.
    span = (float(loss[-1]) - float(loss[0])) / h if h > 0 else math.inf
    if not (np.all(np.isfinite(loss)) and span < _MAX_GRID_CELLS):
        raise OverflowError("privacy losses out of the grid's range")
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
