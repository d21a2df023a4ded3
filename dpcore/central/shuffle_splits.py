"""The shuffled file of ONE binary randomized-response column, bounded over every split of the
others' answers (method ``histogram-splits``; docs/formulas.md#shuffling, issue 27).

With keep probability p = e^{ε₀}/(1 + e^{ε₀}), q = 1 − p, the file is the count of 1-reports.
Fix the m = n − 1 others' answers: a of them yes, m − a no. Their count is
N_a = Bin(a, p) + Bin(m − a, q) (law f) and the file is Y = N_a + R with R ~ Bern(p) (target yes,
P₁) or Bern(q) (target no, P₀). For γ = e^ε,

    P₁(y) − γP₀(y) = A·f(y − 1) − B·f(y),   A = p − γq,  B = γp − q,

and the true δ(ε) of the mechanism is max_a of max(δ(P₁‖P₀), δ(P₀‖P₁)) for split a.

**Reflection.** y ↦ m + 1 − y maps (P₁, P₀) of split a to (P₀, P₁) of split m − a, so
max_a max(both directions) = max_{a ∈ [0, m]} δ(P₁‖P₀): only P₁ against P₀ is computed, over all a.

**Removal lemma.** Adding an independent variable to Y is a post-processing, so it cannot raise
δ(ε). For a ∈ [a₀, a₀ + j] the split (a, m − a) is the split (a₀, m − j − a₀) of m − j others
plus j independent reports (a − a₀ yes, a₀ + j − a no): δ_a^{(m)}(ε) ≤ δ_{a₀}^{(m−j)}(ε). A grid
a₀ ∈ {0, j + 1, 2(j + 1), …} ∪ {m − j} of splits of m − j others therefore bounds every split
from above; ε grows by ≈ j/(2m) (one has j fewer others). j = 0 (every split, exact) when
m ≤ ``_EVERY_SPLIT``, else j + 1 = ⌈m/``_INTERVALS``⌉.

**One split, rigorously from above.** Only y with f(y − 1) > f(y) can give a positive term (A ≤ B
when γ ≥ 1); N is a sum of independent Bernoullis, hence log-concave with its modes within 1 of
its mean μ (Darroch 1964), so y − 1 ≥ ⌊μ⌋ − 2 suffices. f on [⌊μ⌋ − 2, top] is computed by
*exponential tilting*: for any θ, f(y) = f_θ(y)·exp(ln M(θ) − θy) with M(θ) = E e^{θN} =
(q + pe^θ)^a (p + qe^θ)^{m−a}, and the tilted law f_θ = Bin(a, p_θ) ∗ Bin(m − a, q_θ),
p_θ = pe^θ/(q + pe^θ), q_θ = qe^θ/(p + qe^θ), is again two binomials. Chunks of y (8 tilted sd
wide) each get the θ putting E_θ N at their centre, so f_θ is near its peak there; it is the FFT
convolution of the two tilted binomial pmfs (log-space lgamma + exact log-ratios), each truncated
where its KL-Chernoff tail ≤ e^{−60}. The computed v(y) satisfies
    v − E ≤ f_θ ≤ v + E + T,  E = 40·u·log₂L (L the FFT length, u = 2^{−53}),  T = dropped mass,
E is twice the first-order bound ‖ĉ − c‖∞ ≤ log₂L·η·(‖g‖₂ + ‖h‖₂ + ‖c‖₂) + 3u‖c‖₂ ≤
20.1u·log₂L + 3u that Higham's bound on each transform (2002, Thm. 24.2; η ≈ 6.7u for twiddles
accurate to u) gives for c = F⁻¹(Fg ∘ Fh) with pmfs (‖·‖₂ ≤ ‖·‖₁ ≤ 1). Then δ ≤ Σ_y [A·f_up(y − 1) −
B·f_lo(y)]₊ (+ 4u·A·f_up(y − 1) per term for its rounding) + A·P[N ≥ top + 1], the last by the
Chernoff bound ln M(θ) − θ(top + 1) at the last chunk's θ ≥ 0; top is where that bound is below
δ·e^{−30}. The sum is multiplied by e^{10⁻⁶}: the log-pmfs' rounding (one lgamma ≈ 1.3e7 at
n = 10⁶, so ≈ 3e-9 absolute in each ln pmf, plus ln M(θ) − θy) and the summation's. Every term
is thus an upper bound: there is no δ floor (nothing is 1 − a sum; δ down to 1e-100 is tested
against mpmath).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpcore.central.shuffle_pair import log_binom_pmf

__all__ = ["SplitsBound", "splits_bound", "splits_epsilon", "splits_log_delta"]

FloatArray = npt.NDArray[np.float64]

#: Up to this many others every split is computed (j = 0: the exact maximum).
_EVERY_SPLIT = 1000
#: Above it, the splits are covered by this many intervals of j + 1 splits each.
_INTERVALS = 200
_U = 2.0**-53
# Each tilted binomial is truncated where its Chernoff tail is below e^_LOG_TRUNC.
_LOG_TRUNC = -60.0
# Chunk half-width, in tilted sd.
_HALF = 4.0
# The window stops where the Chernoff tail is below δ·e^_LOG_BELOW.
_LOG_BELOW = -30.0
# ln of the multiplier on δ for the log-pmfs' and the summation's rounding (module notes).
_LOG_SUM = 1e-6


@dataclass(frozen=True)
class SplitsBound:
    """Per grid split (a row): f_up and f_lo on y0, y0 + 1, … divided by e^shift (the row's
    largest ln f_up; zero-padded), and the ln Chernoff bound on P[N ≥ top + 1]."""

    up: FloatArray
    lo: FloatArray
    shift: FloatArray
    log_tail: FloatArray
    p: float


def _lse(x: float, y: float) -> float:
    return float(np.logaddexp(x, y))


def _tilt(log_p: float, log_q: float, theta: float) -> tuple[float, float, float, float]:
    """ln p_θ, ln(1 − p_θ), ln q_θ, ln(1 − q_θ) (module notes)."""
    d1 = _lse(log_q, log_p + theta)
    d2 = _lse(log_p, log_q + theta)
    return log_p + theta - d1, log_q - d1, log_q + theta - d2, log_p - d2


def _log_mgf(a: int, b: int, log_p: float, log_q: float, theta: float) -> float:
    return a * _lse(log_q, log_p + theta) + b * _lse(log_p, log_q + theta)


def _theta_for(a: int, b: int, log_p: float, log_q: float, y: float) -> float:
    """θ with E_θ[N] = y (bisection; any θ is valid, this one only makes f_θ peak near y)."""
    lo, hi = -800.0, 800.0
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        lp, _lq, lq2, _lp2 = _tilt(log_p, log_q, mid)
        mean = a * math.exp(lp) + b * math.exp(lq2)
        lo, hi = (mid, hi) if mean < y else (lo, mid)
        if hi - lo < 1e-9:
            break
    return 0.5 * (lo + hi)


def _log_kl_tail(n: int, log_p: float, log_q: float, c: float) -> float:
    """ln of the Chernoff bound exp(−n·KL(c/n ‖ p)) on the Bin(n, p) tail beyond c."""
    x = min(max(c / n, 0.0), 1.0)
    kl = 0.0
    if x > 0.0:
        kl += x * (math.log(x) - log_p)
    if x < 1.0:
        kl += (1.0 - x) * (math.log1p(-x) - log_q)
    return -n * max(kl, 0.0)


def _truncated(n: int, log_p: float, log_q: float) -> tuple[int, FloatArray, float]:
    """(lo, pmf on lo … hi, bound on the dropped mass) of Bin(n, p), cut where the tails are
    below e^_LOG_TRUNC (Chernoff) and where the pmf underflows."""
    if n == 0:
        return 0, np.ones(1), 0.0
    p = math.exp(log_p)
    mean, sd = n * p, math.sqrt(n * p * math.exp(log_q))
    span = math.ceil(12.0 * sd) + 2
    lo, hi = max(0, math.floor(mean) - span), min(n, math.ceil(mean) + span)
    while lo > 0 and _log_kl_tail(n, log_p, log_q, lo - 1.0) > _LOG_TRUNC:
        lo = max(0, lo - span)
    while hi < n and _log_kl_tail(n, log_p, log_q, hi + 1.0) > _LOG_TRUNC:
        hi = min(n, hi + span)
    dropped = 0.0
    if lo > 0:
        dropped += math.exp(_log_kl_tail(n, log_p, log_q, lo - 1.0))
    if hi < n:
        dropped += math.exp(_log_kl_tail(n, log_p, log_q, hi + 1.0))
    pmf = np.exp(log_binom_pmf(lo, hi, n, log_p, log_q))
    dropped += float(np.count_nonzero(pmf == 0.0)) * 1e-307  # underflowed entries (< 5e-324)
    return lo, pmf, dropped


def _split_window(
    a: int, b: int, log_p: float, log_q: float, log_stop: float
) -> tuple[int, FloatArray, FloatArray, float]:
    """(y0, ln f_up, ln f_lo on y0 … top, ln bound on P[N ≥ top + 1]), N = Bin(a, p) + Bin(b, q)."""
    p, q, total = math.exp(log_p), math.exp(log_q), a + b
    mean = a * p + b * q
    y0 = max(0, math.floor(mean) - 2)
    ups: list[FloatArray] = []
    los: list[FloatArray] = []
    start, sd = y0, math.sqrt(total * p * q)
    log_tail = -math.inf
    while start <= total:
        width = max(1, math.floor(_HALF * sd))
        for _ in range(8):  # narrow the chunk until it is ≤ _HALF tilted sd on each side
            theta = _theta_for(a, b, log_p, log_q, min(start + width, total - 0.5))
            lp, lpc, lq, lqc = _tilt(log_p, log_q, theta)
            sd = math.sqrt(a * math.exp(lp + lpc) + b * math.exp(lq + lqc))
            if width <= max(1, math.floor(_HALF * sd)):
                break
            width = max(1, math.floor(_HALF * sd))
        x_lo, gx, tx = _truncated(a, lp, lpc)
        z_lo, gz, tz = _truncated(b, lq, lqc)
        length = len(gx) + len(gz) - 1
        size = 1 << max(1, (length - 1).bit_length())
        v = np.fft.irfft(np.fft.rfft(gx, size) * np.fft.rfft(gz, size), size)[:length]
        err = 40.0 * _U * math.log2(size)
        end = min(total, start + 2 * width)
        idx = np.arange(start, end + 1) - (x_lo + z_lo)
        inside = (idx >= 0) & (idx < length)
        vals = np.where(inside, v[np.clip(idx, 0, length - 1)], 0.0)
        shift = _log_mgf(a, b, log_p, log_q, theta) - theta * np.arange(start, end + 1)
        with np.errstate(divide="ignore"):
            ups.append(np.log(vals + err + tx + tz) + shift)
            los.append(np.log(np.maximum(vals - err, 0.0)) + shift)
        start = end + 1
        if theta >= 0.0:
            log_tail = _log_mgf(a, b, log_p, log_q, theta) - theta * start
            if log_tail <= log_stop:
                break
        else:
            log_tail = 0.0
    if start > total:
        log_tail = -math.inf
    return y0, np.concatenate(ups), np.concatenate(los), log_tail


def _grid(m: int, step: int | None) -> tuple[list[int], int]:
    """The grid splits a₀ (of m − j others) and j (module notes)."""
    if step is None:
        step = 1 if m <= _EVERY_SPLIT else math.ceil(m / _INTERVALS)
    j = min(step - 1, m - 1) if m > 0 else 0
    grid = list(range(0, m - j + 1, j + 1))
    if grid[-1] != m - j:
        grid.append(m - j)
    return grid, j


def splits_bound(
    n: int, eps0: float, delta: float, step: int | None = None, keep_all: bool = False
) -> SplitsBound:
    """The f bounds of every grid split, windows deep enough for δ (module notes). ``step``
    = j + 1 (None: the default; 1: every split). ``keep_all``: the grid splits of all m others
    (no one removed) — with ``lower=True`` below, a lower bound on the true maximum."""
    m = n - 1
    log_p, log_q = -math.log1p(math.exp(-eps0)), -math.log1p(math.exp(eps0))
    grid, j = _grid(m, step)
    if keep_all and grid[-1] != m:
        grid.append(m)  # all others yes: often the worst split
    log_stop = math.log(delta) + _LOG_BELOW
    rows = [
        _split_window(a0, m - a0 if keep_all else m - j - a0, log_p, log_q, log_stop) for a0 in grid
    ]
    width = max(len(r[1]) for r in rows) + 1
    up = np.zeros((len(rows), width))
    lo = np.zeros((len(rows), width))
    shift = np.array([float(r[1].max()) for r in rows])
    for i, (_y0, ru, rl, _t) in enumerate(rows):
        up[i, : len(ru)] = np.exp(ru - shift[i])
        lo[i, : len(rl)] = np.exp(rl - shift[i])
    tails = np.array([r[3] for r in rows])
    return SplitsBound(up=up, lo=lo, shift=shift, log_tail=tails, p=math.exp(log_p))


def splits_log_delta(
    bound: SplitsBound, eps: float, rows: slice | None = None, *, lower: bool = False
) -> FloatArray:
    """ln of an upper bound on δ(ε) of each grid split (P₁ against P₀; module notes);
    ``lower=True``: ln of a lower bound (f_lo against f_up, the window only)."""
    pick = slice(None) if rows is None else rows
    gamma, p = math.exp(eps), bound.p
    q = 1.0 - p
    a_coef, b_coef = p - gamma * q, gamma * p - q
    if a_coef <= 0.0:
        return np.full(len(bound.log_tail[pick]), -math.inf)
    up, lo = bound.up[pick], bound.lo[pick]
    if lower:
        terms = a_coef * lo[:, :-1] - (b_coef * (1.0 + 4.0 * _U)) * up[:, 1:]
        low = np.maximum(terms, 0.0).sum(axis=1)
        with np.errstate(divide="ignore"):
            lowered: FloatArray = np.log(low) + bound.shift[pick] - _LOG_SUM
        return lowered
    # term(y) = A·f_up(y − 1)·(1 + 4u) − B·f_lo(y): column y − y0 − 1 of up, y − y0 of lo.
    terms = (a_coef * (1.0 + 4.0 * _U)) * up[:, :-1] - b_coef * lo[:, 1:]
    total = np.maximum(terms, 0.0).sum(axis=1)
    total += a_coef * up.shape[1] * 1e-300  # entries that underflowed (relative ≤ e^−690)
    with np.errstate(divide="ignore"):
        out = np.log(total) + bound.shift[pick] + _LOG_SUM
    result: FloatArray = np.logaddexp(out, math.log(a_coef) + bound.log_tail[pick])
    return result


def splits_epsilon(
    n: int, eps0: float, delta: float, *, high: float | None = None, step: int | None = None
) -> float:
    """Smallest ε (upper end of a bisection to 0.01 %, ≤ ``high`` or ε₀) whose bound on
    max over splits δ(ε) is ≤ δ; ``high`` itself when even it is not certified."""
    top = eps0 if high is None else high
    if n < 2:
        return top
    bound = splits_bound(n, eps0, delta, step)
    target = math.log(delta)

    worst = [0]  # the row that last exceeded the target: tried first

    def above(eps: float) -> bool:
        row = worst[0]
        if splits_log_delta(bound, eps, slice(row, row + 1))[0] > target:
            return True
        values = splits_log_delta(bound, eps)
        worst[0] = int(values.argmax())
        return bool(values[worst[0]] > target)

    if above(top):
        return top
    if not above(0.0):
        return 0.0
    lo, hi = 0.0, top
    while hi - lo > 1e-9 + 1e-4 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return hi
