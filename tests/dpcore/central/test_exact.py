"""Exact pure-DP composition (``exact_pure``) and the grouped/vectorised accountant.

What is asserted against dp-accounting, and why. Our ``exact_pure`` is the exact ε of the
composition of RR_{εᵢ} pairs up to floating-point rounding (checked below against the closed form
of Kairouz, Oh & Viswanath 2015 in 60-digit decimal arithmetic and against brute-force enumeration).
dp-accounting's discrete-Laplace PLD is *pessimistic*: each loss is rounded **up** to its grid of
width h (≤ h per event, so ≤ k·h on the composed loss, and ε moves by at most as much) and the
truncated tail mass is counted at infinite loss. So, for a sound and exact ``exact_pure``:

    dp-accounting − k·h − η  ≤  ours  ≤  dp-accounting + η,

η = 1e-8 covering the floating-point noise of dp-accounting's FFT convolution (observed: at
k = 1000, h = 1e-5 it returns 1.1e-9 *below* the exact value, so it is not bit-pessimistic). When
ε₀ lies on the grid (ε₀ = 0.1, h = 1e-4) there is no rounding and the values agree to ≤ 1e-6.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from decimal import Decimal, getcontext
from functools import cache

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.central import accounting
from dpcore.central.accounting import (
    EXACT_PURE_MAX_SUPPORT,
    RDP_ORDERS,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    PrivacyParameterError,
    PureDPEvent,
    ZCDPEvent,
    advanced_composition_epsilon,
    basic_composition_epsilon,
    epsilon_spent,
    event_rdp,
    exact_pure_delta,
    exact_pure_epsilon,
    gdp_epsilon,
    rdp_epsilon,
    rdp_to_epsilon,
    zcdp_epsilon,
    zcdp_rho,
)
from dpcore.central.calibration import check_delta, gaussian_delta

DELTA = 1e-5
FFT_NOISE = 1e-8


@cache
def pld_discrete_laplace(eps0: float, k: int, interval: float) -> float:
    dist = pld.from_discrete_laplace_mechanism(eps0, value_discretization_interval=interval)
    return dist.self_compose(k).get_epsilon_for_delta(DELTA)


# --------------------------------------------------------------------------- reference: KOV


def kov_delta(k: int, eps0: float, i: int, prec: int = 60) -> Decimal:
    """KOV 2015, Thm. 3.3: k-fold ε₀-DP is exactly (ε_i, δ_i)-DP at ε_i = (k − 2i)ε₀ with
    δ_i = Σ_{l<i} C(k, l)(e^{(k−l)ε₀} − e^{(k−2i+l)ε₀}) / (1 + e^{ε₀})^k (decimal arithmetic)."""
    getcontext().prec = prec
    e = Decimal(eps0)  # the binary value of eps0, exactly
    total = sum(
        (math.comb(k, ell) * (((k - ell) * e).exp() - ((k - 2 * i + ell) * e).exp()))
        for ell in range(i)
    )
    return Decimal(total) / (1 + e.exp()) ** k


@pytest.mark.parametrize(("k", "eps0"), [(2, 0.5), (10, 0.1), (25, 0.5), (60, 1.0), (250, 3.0)])
def test_matches_the_kov_closed_form(k: int, eps0: float) -> None:
    """(250, 3.0): losses span 1500 > 600, so this exercises the log-space accumulation too."""
    events = [PureDPEvent(eps0)] * k
    checked = 0
    for i in range(1, k // 2 + 1):
        delta_i = kov_delta(k, eps0, i)
        if not Decimal("1e-250") < delta_i < Decimal("0.9"):
            continue
        eps_i = (k - 2 * i) * eps0
        assert exact_pure_delta(events, eps_i) == pytest.approx(float(delta_i), rel=1e-9)
        if Decimal("1e-300") < delta_i < 1:
            assert exact_pure_epsilon(events, float(delta_i)) == pytest.approx(
                eps_i, rel=1e-9, abs=1e-9
            )
        checked += 1
    assert checked >= 1


def test_single_release_and_trivial_delta() -> None:
    # One RR_ε₀: δ(ε) = p(1 − e^{ε−ε₀}) on [0, ε₀), p = e^{ε₀}/(1 + e^{ε₀}).
    for eps0 in (0.01, 0.1, 1.0, 5.0):
        p = math.exp(eps0) / (1.0 + math.exp(eps0))
        want = eps0 + math.log1p(-DELTA / p)
        assert exact_pure_epsilon([DiscreteLaplaceEvent(eps0)], DELTA) == pytest.approx(
            want, rel=1e-12
        )
    # δ above the total variation (e^ε − 1)/(e^ε + 1) of RR_0.1 (≈ 0.05): nothing to pay.
    assert exact_pure_epsilon([PureDPEvent(0.1)], 0.1) == 0.0
    assert exact_pure_delta([PureDPEvent(0.1)], 0.0) == pytest.approx(math.tanh(0.05), rel=1e-12)


# --------------------------------------------------------------------------- reference: brute force


def brute_delta(eps_list: list[float], eps: float) -> float:
    """Σ over all 2^k outcomes of ⊗ RR_{εᵢ}: P(b)·(1 − e^{ε − ℓ(b)})₊."""
    total = []
    for bits in itertools.product((0, 1), repeat=len(eps_list)):
        log_p, loss = 0.0, 0.0
        for b, e in zip(bits, eps_list, strict=True):
            sign = 1.0 if b else -1.0  # b = 1: the output that favours the first database
            log_p += (e if b else 0.0) - math.log1p(math.exp(e))
            loss += sign * e
        if loss > eps:
            total.append(math.exp(log_p) * -math.expm1(eps - loss))
    return math.fsum(total)


def brute_epsilon(eps_list: list[float], delta: float) -> float:
    if brute_delta(eps_list, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, math.fsum(eps_list)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if brute_delta(eps_list, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


@pytest.mark.slow  # brute force over every subset: ~5 s
@settings(max_examples=40, deadline=None)
@given(
    eps_list=st.lists(st.sampled_from([0.05, 0.1, 0.3, 1.0, 2.5]), min_size=1, max_size=10),
    delta=st.sampled_from([1e-9, 1e-5, 1e-3, 0.05]),
    continuous=st.booleans(),
)
def test_heterogeneous_matches_brute_force(eps_list, delta: float, continuous: bool) -> None:
    kind = ContinuousLaplaceEvent if continuous else DiscreteLaplaceEvent
    events = [kind(e) for e in eps_list]
    for eps in (0.0, 0.5 * sum(eps_list), 0.9 * sum(eps_list)):
        assert exact_pure_delta(events, eps) == pytest.approx(
            brute_delta(eps_list, eps), rel=1e-9, abs=1e-300
        )
    assert exact_pure_epsilon(events, delta) == pytest.approx(
        brute_epsilon(eps_list, delta), rel=1e-9, abs=1e-12
    )


# --------------------------------------------------------------------------- dp-accounting


LAPLACE_TARGETS = {10: 0.994, 100: 4.307, 1000: 17.787}  # dp-accounting discrete-Laplace PLD


@pytest.mark.parametrize("k", [1, 10, 100, 1000])
def test_discrete_laplace_table_matches_dp_accounting(k: int) -> None:
    """ε₀ = 0.1 is on dp-accounting's grid (h = 1e-4): no rounding, values agree to ≤ 1e-6."""
    result = epsilon_spent([DiscreteLaplaceEvent(0.1)] * k, DELTA)
    theirs = pld_discrete_laplace(0.1, k, 1e-4)
    assert result.method == "exact_pure"
    assert theirs - 1e-6 <= result.epsilon <= theirs + FFT_NOISE
    if k in LAPLACE_TARGETS:
        assert result.epsilon == pytest.approx(LAPLACE_TARGETS[k], abs=5e-4)
    # The exact charge beats every other accountant here.
    assert all(v >= result.epsilon for v in result.candidates.values())


@settings(max_examples=10, deadline=None)
@given(eps0=st.sampled_from([0.05, 0.37, 0.5, 2.0]), k=st.sampled_from([1, 3, 30]))
def test_never_below_dp_accounting_off_grid(eps0: float, k: int) -> None:
    h = 1e-3
    theirs = pld_discrete_laplace(eps0, k, h)
    ours = exact_pure_epsilon([DiscreteLaplaceEvent(eps0)] * k, DELTA)
    assert theirs - k * h - FFT_NOISE <= ours <= theirs + FFT_NOISE


# --------------------------------------------------------------------------- applicability, cap


def test_applies_only_to_pure_events_within_the_cap() -> None:
    mixed = [DiscreteLaplaceEvent(0.1), DiscreteGaussianEvent(1.0, 1.0)]
    assert exact_pure_epsilon(mixed, DELTA) == math.inf
    assert epsilon_spent(mixed, DELTA).candidates["exact_pure"] == math.inf
    assert exact_pure_epsilon([ZCDPEvent(0.1)], DELTA) == math.inf
    with pytest.raises(PrivacyParameterError):
        exact_pure_delta(mixed, 1.0)
    # Π(k_g + 1) just over the cap: the PLD accountant answers instead (RDP before issue 13).
    side = round(EXACT_PURE_MAX_SUPPORT ** (1 / 3))
    while (side + 1) ** 3 <= EXACT_PURE_MAX_SUPPORT:
        side += 1
    over = [e for eps in (0.1, 0.2, 0.3) for e in [PureDPEvent(eps)] * side]
    result = epsilon_spent(over, DELTA)
    assert result.candidates["exact_pure"] == math.inf
    assert result.method == "pld"
    assert result.candidates["pld"] < result.candidates["rdp"]
    with pytest.raises(PrivacyParameterError):
        exact_pure_delta(over, 1.0)
    # Same ε as different event kinds: one group (continuous Laplace is ε-DP too).
    same = [DiscreteLaplaceEvent(0.2), ContinuousLaplaceEvent(0.2), PureDPEvent(0.2)]
    assert exact_pure_epsilon(same, DELTA) == exact_pure_epsilon([PureDPEvent(0.2)] * 3, DELTA)


# --------------------------------------------------------------------------- properties

pure_strategy = st.one_of(
    st.builds(DiscreteLaplaceEvent, st.sampled_from([0.01, 0.1, 0.25, 0.5, 1.0, 3.0])),
    st.builds(PureDPEvent, st.sampled_from([0.01, 0.1, 0.25, 0.5, 1.0, 3.0])),
)
deltas = st.floats(1e-12, 0.1)


@settings(max_examples=60, deadline=None)
@given(
    base=st.lists(pure_strategy, min_size=1, max_size=3),  # support ≤ 41³ < the cap
    repeats=st.integers(1, 40),
    delta=deltas,
)
def test_exact_pure_is_the_tightest_for_pure_events(base, repeats: int, delta: float) -> None:
    events = base * repeats
    exact = exact_pure_epsilon(events, delta)
    assert math.isfinite(exact)
    assert exact <= basic_composition_epsilon(events) * (1 + 1e-12)
    assert exact <= advanced_composition_epsilon(events, delta) * (1 + 1e-12)
    # RDP of discrete Laplace / PureDP is the RR curve: a sound bound on the same pair.
    assert exact <= rdp_epsilon(events, delta) * (1 + 1e-12) + 1e-12
    assert exact <= zcdp_epsilon(events, delta) * (1 + 1e-12)
    result = epsilon_spent(events, delta)
    assert result.epsilon == min(result.candidates.values())
    assert result.epsilon == exact or result.method in {"basic", "advanced"}


@settings(max_examples=40, deadline=None)
@given(
    event=pure_strategy,
    k=st.integers(1, 300),
    extra=st.lists(pure_strategy, max_size=3),
    delta=deltas,
)
def test_exact_pure_is_monotone(event, k: int, extra, delta: float) -> None:
    fewer = exact_pure_epsilon([event] * k + extra, delta)
    more = exact_pure_epsilon([event] * (k + 1) + extra, delta)
    assert more >= fewer - 1e-12 * max(1.0, fewer)
    # and non-increasing in δ
    assert exact_pure_epsilon([event] * k + extra, delta * 2) <= fewer + 1e-12 * max(1.0, fewer)


# --------------------------------------------------------------------------- grouped vs per-event


def ref_rdp_to_epsilon(orders, rdp, delta: float) -> float:
    """The pre-grouping conversion, one order at a time (tight, CKS 2020 Prop. 12)."""
    log_d = math.log(check_delta(delta))
    best = math.inf
    for alpha, r in zip(orders, rdp, strict=True):
        eps = r + math.log1p(-1.0 / alpha) - (log_d + math.log(alpha)) / (alpha - 1.0)
        best = min(best, eps)
    return max(0.0, best)


def ref_candidates(events, delta: float) -> dict[str, float]:
    """Slow reference: the accountant as it was before grouping, event by event per order."""
    pure = [
        ev.epsilon
        if isinstance(ev, DiscreteLaplaceEvent | ContinuousLaplaceEvent | PureDPEvent)
        else None
        for ev in events
    ]
    basic = math.inf if None in pure else math.fsum(pure)  # type: ignore[arg-type]
    if math.isinf(basic):
        advanced = math.inf
    else:
        e0, k = max(pure), len(events)  # type: ignore[type-var]
        advanced = min(e0 * math.sqrt(2 * k * math.log(1 / delta)) + k * e0 * math.expm1(e0), basic)

    def rho(ev) -> float:
        return (
            ev.rho
            if isinstance(ev, DiscreteGaussianEvent | ContinuousGaussianEvent | ZCDPEvent)
            else ev.epsilon**2 / 2
        )

    total_rho = math.fsum(rho(ev) for ev in events)
    zcdp = total_rho + 2 * math.sqrt(total_rho * math.log(1 / delta))
    curve = [math.fsum(event_rdp(ev, a) for ev in events) for a in RDP_ORDERS]
    rdp = ref_rdp_to_epsilon(RDP_ORDERS, curve, delta)
    if all(isinstance(ev, ContinuousGaussianEvent) for ev in events):
        mu = math.sqrt(math.fsum((ev.l2_sensitivity / ev.sigma) ** 2 for ev in events))
        if gaussian_delta(0.0, mu) <= delta:
            gdp = 0.0
        else:
            lo, hi = 0.0, 1.0
            while gaussian_delta(hi, mu) > delta:
                lo, hi = hi, hi * 2.0
            for _ in range(200):
                if hi - lo <= 1e-12 * hi:
                    break
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if gaussian_delta(mid, mu) > delta else (lo, mid)
            gdp = hi
    else:
        gdp = math.inf
    return {"basic": basic, "advanced": advanced, "zcdp": zcdp, "rdp": rdp, "gdp": gdp}


any_event = st.one_of(
    st.builds(DiscreteLaplaceEvent, st.floats(0.01, 3.0)),
    st.builds(ContinuousLaplaceEvent, st.floats(0.01, 3.0)),
    st.builds(DiscreteGaussianEvent, st.floats(0.3, 50.0), st.floats(0.5, 3.0)),
    st.builds(ContinuousGaussianEvent, st.floats(0.3, 50.0), st.floats(0.5, 3.0)),
    st.builds(PureDPEvent, st.floats(0.01, 3.0)),
    st.builds(ZCDPEvent, st.floats(1e-4, 2.0)),
)


def same(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)


@settings(max_examples=60, deadline=None)
@given(
    kinds=st.lists(any_event, min_size=1, max_size=10),
    picks=st.lists(st.integers(0, 9), min_size=1, max_size=200),
    delta=st.floats(1e-12, 0.5),
)
def test_grouped_equals_per_event_reference(kinds, picks, delta: float) -> None:
    events = [kinds[i % len(kinds)] for i in picks]
    ref = ref_candidates(events, delta)
    got = epsilon_spent(events, delta).candidates
    for name, value in ref.items():
        assert same(got[name], value), (name, got[name], value)
    # the public helpers agree too (and the exact sums are bit-identical)
    assert basic_composition_epsilon(events) == ref["basic"]
    assert zcdp_rho(events) == math.fsum(
        ev.rho
        if isinstance(ev, DiscreteGaussianEvent | ContinuousGaussianEvent | ZCDPEvent)
        else ev.epsilon**2 / 2
        for ev in events
    )
    assert same(gdp_epsilon(events, delta), ref["gdp"])
    curve = [math.fsum(event_rdp(ev, a) for ev in events) for a in RDP_ORDERS]
    assert same(rdp_to_epsilon(RDP_ORDERS, curve, delta)[0], ref["rdp"])


def test_rdp_on_a_custom_order_grid() -> None:
    orders = (1.5, 2.0, 3.0, 8.0, 32.0)
    events = [ContinuousLaplaceEvent(0.3)] * 7 + [DiscreteGaussianEvent(3.0, 1.0)] * 2
    curve = [math.fsum(event_rdp(ev, a) for ev in events) for a in orders]
    assert same(rdp_epsilon(events, DELTA, orders), ref_rdp_to_epsilon(orders, curve, DELTA))
    assert rdp_to_epsilon(orders, curve, DELTA)[1] in orders


def test_equal_but_distinct_event_objects_group_together() -> None:
    assert accounting.group_events(
        [DiscreteLaplaceEvent(0.1), DiscreteLaplaceEvent(0.1), PureDPEvent(0.1)]
    ) == {
        DiscreteLaplaceEvent(0.1): 2,
        PureDPEvent(0.1): 1,
    }
    with pytest.raises(PrivacyParameterError):
        epsilon_spent([[1.0]], DELTA)  # type: ignore[list-item]


def test_epsilon_spent_is_fast_for_a_thousand_events() -> None:
    """The charge runs inside the budget row lock (was 0.2–0.6 s for 1000 events)."""
    rng = np.random.default_rng(7)
    kinds = [
        DiscreteLaplaceEvent(0.1),
        DiscreteLaplaceEvent(0.5),
        PureDPEvent(0.2),
        ContinuousLaplaceEvent(0.3),
        DiscreteGaussianEvent(1.0, 1.0),
        ContinuousGaussianEvent(5.0, 1.0),
        DiscreteGaussianEvent(2.0, 2.0),
        ZCDPEvent(0.01),
        PureDPEvent(1.0),
        DiscreteLaplaceEvent(0.05),
    ]
    workloads = [
        [kinds[i] for i in rng.integers(0, len(kinds), 1000)],
        [DiscreteLaplaceEvent(0.1)] * 1000,
        [DiscreteGaussianEvent(1.0, 1.0)] * 1000,
        [kinds[i] for i in rng.integers(0, 3, 1000)],
    ]
    for events in workloads:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            epsilon_spent(events, DELTA)
            times.append(time.perf_counter() - start)
        assert statistics.median(times) < 0.05  # ≈ 1 ms unloaded; generous for shared CI
