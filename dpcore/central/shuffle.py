"""Privacy amplification by shuffling: the central (ε, δ) of n shuffled ε₀-DP reports
(docs/formulas.md#shuffling, docs/privacy-model.md#shuffling).

Setting: n people each send one report made by an ε₀-DP local randomizer (here: one row of
randomized answers; its ε₀ is the sum of the row's questions' local ε, by composition), and the
recipient sees only the *shuffled multiset* of reports. Then the output is (ε, δ)-DP with ε far
below ε₀ when n is large. Every ε here comes from the exact hockey-stick divergence of a *clone
pair* (:mod:`dpcore.central.shuffle_pair`), an upper bound on the shuffled output's δ(ε) because
the output is a post-processing of the pair:

- ``clones-2021`` — any ε₀-DP randomizer (Feldman, McMillan & Talwar 2021, Thm. 3.2 / §5): every
  other report is a clone with probability p = e^{−ε₀}, α = e^{ε₀}/(1 + e^{ε₀}), weight 1.
- ``clones-2023`` — the row is one k-ary randomized response (k = 2: any ε₀-DP randomizer of a
  yes/no answer, since each is a post-processing of binary RR, Kairouz, Oh & Viswanath 2015):
  with r = 1/(e^{ε₀} + k − 1), the target's report is x w.p. e^{ε₀}r, x′ w.p. r and another
  value w.p. (k − 2)r, the same under x′ with x and x′ swapped. The (k − 2)r part is common to
  both (joint convexity of the hockey-stick: weight w = 1 − (k − 2)r), the rest is Δ with
  α = e^{ε₀}/(e^{ε₀} + 1) between the point masses at x and x′, and every other report puts at
  least r on each of x and x′, so it is a clone with p = 2r. This is the decomposition of
  Feldman, McMillan & Talwar 2023 (SODA; arXiv:2208.04591, whose errata restricts its general
  theorem to randomizers that admit it — k-RR does, as just shown).

- ``privacy-blanket`` — k ≥ 3 (one k-ary randomized response per row): the view of an adversary
  told which of the others drew their report uniformly (Balle, Bell, Gascón & Nissim 2019),
  computed exactly from above (:mod:`dpcore.central.shuffle_blanket`); sound for every dataset
  of the others, 1.05–6× below ``clones-2023`` (bench/RESULTS.md §14).
- ``histogram-splits`` — k = 2 only (one yes/no column): not a clone pair but the count of
  1-reports itself, bounded over every split of the others' answers by removing j ≈ m/200 of
  them (post-processing) on a grid of splits (:mod:`dpcore.central.shuffle_splits`): within
  ≈ 0.3 % of the exact worst case (exact, every split, for n ≤ 1001), where the clone pairs are
  1.1–1.4× above it.

:func:`shuffled_guarantee` states the smallest sound one and names it; :func:`shuffled_epsilon`
(no k: any randomizer) is ``clones-2021``. ε is the upper end of a bisection (to 0.01 %) on the
upper bound of δ, never above ε₀ (the shuffle is a post-processing of ε₀-DP reports).
Heterogeneous rows: ε₀ = the largest row ε (every row is then ε₀-DP).

:func:`closed_form_epsilon` is FMT 2021 Theorem 3.1 (for ε₀ ≤ ln(n/(16 ln(2/δ)))):
    ε ≤ ln(1 + (e^{ε₀} − 1)/(e^{ε₀} + 1)·(8√(e^{ε₀} ln(4/δ))/√n + 8e^{ε₀}/n)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from dpcore.central.shuffle_blanket import blanket_epsilon
from dpcore.central.shuffle_pair import TINY_EPS0, ClonePair, pair_log_delta
from dpcore.central.shuffle_splits import splits_epsilon

__all__ = [
    "ASSUMPTIONS",
    "METHODS",
    "ShuffledGuarantee",
    "clone_pair",
    "closed_form_epsilon",
    "shuffled_delta",
    "shuffled_epsilon",
    "shuffled_guarantee",
]

#: The bounds :func:`shuffled_guarantee` may name (module notes).
METHODS = ("histogram-splits", "privacy-blanket", "clones-2023", "clones-2021")

#: What the shuffled-export guarantee assumes, in plain words (shown with the export).
ASSUMPTIONS = (
    "Each row is one person's randomized answers, made on their own device by the survey's "
    "randomizers (no direct answers in the file).",
    "The rows are shuffled and carry nothing that links them to a person, an invitation, a time "
    "or each other; the recipient gets only this file.",
    "Everyone who answered is counted in n, and the randomizers ran exactly as designed.",
    "It protects a person against whoever holds only this file; the survey's operators, who see "
    "reports as they arrive, are protected against by each row's own (local) ε only.",
)

# ε₀ from which e^ε₀ is not computed: the trivial bound (δ(ε) ≤ 1 below ε₀) is used instead.
_HUGE = 700.0
# Bisection: stop when hi − lo ≤ _REL·hi + _ABS.
_REL = 1e-4
_ABS = 1e-9


@dataclass(frozen=True)
class ShuffledGuarantee:
    """The shuffled file is (epsilon, delta)-DP for n rows of local ε₀ = local_epsilon, by
    ``method`` (one of :data:`METHODS`); epsilon == local_epsilon when shuffling gains nothing."""

    epsilon: float
    delta: float
    n: int
    local_epsilon: float
    method: str


def clone_pair(n: int, eps0: float, k: int | None = None) -> ClonePair:
    """The pair of ``clones-2021`` (k None: any ε₀-DP randomizer) or ``clones-2023`` (one k-RR)."""
    e0 = math.exp(min(eps0, _HUGE))  # beyond, nothing is computed (no amplification stated)
    alpha = e0 / (1.0 + e0)
    if k is None:
        return ClonePair(n=n, p=math.exp(-eps0), alpha=alpha)
    if k < 2:
        raise ValueError("k-ary randomized response needs k ≥ 2")
    r = 1.0 / (e0 + k - 1.0)
    return ClonePair(n=n, p=2.0 * r, alpha=alpha, weight=1.0 - (k - 2) * r)


def _check(n: int, eps0: float, delta: float) -> None:
    if not (eps0 > 0 and 0 < delta < 1) or n < 1:
        raise ValueError("need n ≥ 1, eps0 > 0 and delta in (0, 1)")


def _epsilon(pair: ClonePair, eps0: float, delta: float) -> float:
    """Smallest ε (upper end of a bisection) with the pair's δ(ε) bound ≤ δ; ≤ ε₀."""
    if pair.n < 2 or eps0 >= _HUGE or eps0 < TINY_EPS0 or pair.p <= 0.0:
        return eps0
    target = math.log(delta)
    if pair_log_delta(pair, 0.0) <= target:
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > _ABS + _REL * hi:
        mid = 0.5 * (lo + hi)
        if pair_log_delta(pair, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def shuffled_delta(n: int, eps0: float, eps: float) -> float:
    """Upper bound on δ(ε) of n shuffled ε₀-DP reports (``clones-2021``; module notes)."""
    if n < 2 or eps0 >= _HUGE or eps0 < TINY_EPS0:
        return 1.0 if eps < eps0 else 0.0
    return math.exp(pair_log_delta(clone_pair(n, eps0), eps))


@lru_cache(maxsize=256)
def shuffled_epsilon(n: int, eps0: float, delta: float) -> float:
    """ε of n shuffled reports of any ε₀-DP randomizer at δ (``clones-2021``); ≤ ε₀."""
    _check(n, eps0, delta)
    return _epsilon(clone_pair(n, eps0), eps0, delta)


@lru_cache(maxsize=256)
def shuffled_guarantee(
    n: int, local_epsilon: float, delta: float, k: int | None = None
) -> ShuffledGuarantee:
    """The tightest sound (ε, δ) we compute for n shuffled ε₀-DP reports: ``clones-2021`` for
    any randomizer (k None), the smallest of it, ``clones-2023`` and (k ≥ 3) ``privacy-blanket``
    when each report is one k-ary randomized response, and for k = 2 (one yes/no column) the
    smallest of those and ``histogram-splits`` (:mod:`dpcore.central.shuffle_splits`, within
    ≈ 0.3 % of the exact worst case). A clone bound is computed in full only when it certifies
    an ε below the splits' (it is then stated): otherwise it could not be stated anyway."""
    _check(n, local_epsilon, delta)
    if k == 2 and n >= 2 and TINY_EPS0 <= local_epsilon < _HUGE:
        eps = splits_epsilon(n, local_epsilon, delta)
        method, target = "histogram-splits", math.log(delta)
        for name, pair in (
            ("clones-2023", clone_pair(n, local_epsilon, 2)),
            ("clones-2021", clone_pair(n, local_epsilon)),
        ):
            if eps > 0.0 and pair_log_delta(pair, eps * (1.0 - _REL)) <= target:
                other = _epsilon(pair, local_epsilon, delta)
                if other < eps:
                    eps, method = other, name
        return ShuffledGuarantee(
            epsilon=eps, delta=delta, n=n, local_epsilon=local_epsilon, method=method
        )
    eps, method = shuffled_epsilon(n, local_epsilon, delta), "clones-2021"
    if k is not None:
        eps23 = _epsilon(clone_pair(n, local_epsilon, k), local_epsilon, delta)
        if eps23 <= eps:
            eps, method = eps23, "clones-2023"
        if k >= 3:
            blanket = blanket_epsilon(n, local_epsilon, delta, k)
            if blanket < eps:
                eps, method = blanket, "privacy-blanket"
    return ShuffledGuarantee(
        epsilon=eps, delta=delta, n=n, local_epsilon=local_epsilon, method=method
    )


def closed_form_epsilon(n: int, eps0: float, delta: float) -> float | None:
    """FMT 2021, Theorem 3.1 (None outside its range ε₀ ≤ ln(n/(16 ln(2/δ))))."""
    if n < 2 or eps0 > math.log(n / (16.0 * math.log(2.0 / delta))):
        return None
    e0 = math.exp(eps0)
    inner = 8.0 * math.sqrt(e0 * math.log(4.0 / delta)) / math.sqrt(n) + 8.0 * e0 / n
    return math.log1p((e0 - 1.0) / (e0 + 1.0) * inner)
