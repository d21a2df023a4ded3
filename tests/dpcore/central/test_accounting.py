"""Accounting (dpcore.central.accounting) against docs/formulas.md#reference-values and Google's
dp-accounting.

dp-accounting is a test-only dependency. Its PLD values (connect-the-dots, pessimistic, i.e. an
*upper* bound on the true ε within the discretization) are cached per call so the whole file
stays fast.
"""

from __future__ import annotations

import logging
import math
from functools import cache

import pytest
from dp_accounting import dp_event as dpe
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.central.accounting import (
    RDP_ORDERS,
    AccountingResult,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    PrivacyParameterError,
    PureDPEvent,
    ZCDPEvent,
    advanced_composition_epsilon,
    basic_composition_epsilon,
    can_afford,
    epsilon_spent,
    event_rdp,
    gaussian_sigma_for_budget,
    gdp_epsilon,
    rdp_epsilon,
    rdp_to_epsilon,
    zcdp_epsilon,
)
from dpcore.central.calibration import analytic_gaussian_sigma

DELTA = 1e-5
logging.getLogger().setLevel(logging.ERROR)  # dp-accounting warns about connect-the-dots

# The reference values of docs/formulas.md#reference-values (δ = 1e-5).
GAUSS_K = (1, 10, 100, 1000)
GAUSS_EXACT = (4.377, 17.857, 91.817, 633.93)
GAUSS_RDP = (4.729, 19.054, 96.116, 654.86)
GAUSS_ZCDP = (5.299, 20.174, 97.985, 651.74)
LAP_K = (10, 100, 1000)
LAP_PLD = (0.990, 4.220, 17.42)
LAP_RDP = (0.990, 4.533, 18.58)


# --------------------------------------------------------------------------- dp-accounting


@cache
def pld_gaussian(sigma: float, k: int, interval: float = 1e-4) -> float:
    dist = pld.from_gaussian_mechanism(sigma, value_discretization_interval=interval)
    return dist.self_compose(k).get_epsilon_for_delta(DELTA)


@cache
def pld_discrete_gaussian(sigma: float, k: int, interval: float = 1e-3) -> float:
    dist = pld.from_discrete_gaussian_mechanism(sigma, value_discretization_interval=interval)
    return dist.self_compose(k).get_epsilon_for_delta(DELTA)


@cache
def pld_laplace(eps0: float, k: int, discrete: bool, interval: float = 1e-4) -> float:
    if discrete:  # P[x] ∝ exp(−a|x|): a = ε₀ for sensitivity 1
        dist = pld.from_discrete_laplace_mechanism(eps0, value_discretization_interval=interval)
    else:
        dist = pld.from_laplace_mechanism(1.0 / eps0, value_discretization_interval=interval)
    return dist.self_compose(k).get_epsilon_for_delta(DELTA)


def dpa_rdp(event: dpe.DpEvent, k: int, orders: list[float] | None = None) -> float:
    acc = rdp_acc.RdpAccountant(orders) if orders else rdp_acc.RdpAccountant()
    acc.compose(event, k)
    return acc.get_epsilon(DELTA)


def gaussians(
    k: int, sigma: float = 1.0, discrete: bool = False
) -> list[DiscreteGaussianEvent | ContinuousGaussianEvent]:
    kind = DiscreteGaussianEvent if discrete else ContinuousGaussianEvent
    return [kind(sigma, 1.0)] * k


# --------------------------------------------------------------------------- reference tables


@pytest.mark.parametrize(
    ("k", "exact", "rdp", "zcdp"),
    list(zip(GAUSS_K, GAUSS_EXACT, GAUSS_RDP, GAUSS_ZCDP, strict=True)),
)
def test_gaussian_reference_table(k: int, exact: float, rdp: float, zcdp: float) -> None:
    evs = gaussians(k)
    assert gdp_epsilon(evs, DELTA) == pytest.approx(exact, abs=0.01)
    assert rdp_epsilon(evs, DELTA) == pytest.approx(rdp, abs=0.01)
    assert zcdp_epsilon(evs, DELTA) == pytest.approx(zcdp, abs=0.01)
    result = epsilon_spent(evs, DELTA)
    assert (result.method, result.epsilon) == ("gdp", gdp_epsilon(evs, DELTA))
    # dp-accounting: PLD ≈ exact; its RDP equals ours on the same orders, ours ≤ its default.
    assert pld_gaussian(1.0, k) == pytest.approx(exact, abs=0.01)
    assert gdp_epsilon(evs, DELTA) == pytest.approx(pld_gaussian(1.0, k), abs=0.01)
    ours = rdp_epsilon(evs, DELTA)
    assert ours == pytest.approx(dpa_rdp(dpe.GaussianDpEvent(1.0), k, list(RDP_ORDERS)), rel=1e-9)
    assert ours <= dpa_rdp(dpe.GaussianDpEvent(1.0), k) + 1e-9


@pytest.mark.parametrize(("k", "pld_ref", "rdp"), list(zip(LAP_K, LAP_PLD, LAP_RDP, strict=True)))
def test_continuous_laplace_reference_table(k: int, pld_ref: float, rdp: float) -> None:
    evs = [ContinuousLaplaceEvent(0.1)] * k
    assert rdp_epsilon(evs, DELTA) == pytest.approx(rdp, abs=0.01)
    assert pld_laplace(0.1, k, False) == pytest.approx(pld_ref, abs=0.01)
    ours = rdp_epsilon(evs, DELTA)
    assert ours == pytest.approx(dpa_rdp(dpe.LaplaceDpEvent(10.0), k, list(RDP_ORDERS)), rel=1e-9)
    assert ours <= dpa_rdp(dpe.LaplaceDpEvent(10.0), k) + 1e-9
    assert epsilon_spent(evs, DELTA).epsilon >= pld_laplace(0.1, k, False) - 1e-3


@pytest.mark.parametrize("k", [1, 10, 100, 1000])
def test_discrete_laplace_is_accounted_as_randomized_response(k: int) -> None:
    """The sampler's discrete Laplace has privacy loss exactly ±ε: never below its exact PLD."""
    evs = [DiscreteLaplaceEvent(0.1)] * k
    result = epsilon_spent(evs, DELTA)
    assert result.epsilon >= pld_laplace(0.1, k, True) - 1e-3
    assert result.epsilon >= epsilon_spent([ContinuousLaplaceEvent(0.1)] * k, DELTA).epsilon
    assert result.epsilon == epsilon_spent([PureDPEvent(0.1)] * k, DELTA).epsilon


def test_continuous_laplace_curve_would_undercount_discrete_noise() -> None:
    # Why LaplaceEvent defaults to discrete=True: at k = 10 the continuous-Laplace RDP (0.990) is
    # *below* the exact ε of the discrete Laplace the sampler actually draws (0.994).
    continuous = rdp_epsilon([ContinuousLaplaceEvent(0.1)] * 10, DELTA)
    exact_discrete = pld_laplace(0.1, 10, True)
    assert continuous < exact_discrete - 1e-3
    assert epsilon_spent([DiscreteLaplaceEvent(0.1)] * 10, DELTA).epsilon >= exact_discrete - 1e-4


@pytest.mark.parametrize("k", [1, 10, 100])
def test_discrete_gaussian_never_below_its_pld(k: int) -> None:
    evs = gaussians(k, discrete=True)
    result = epsilon_spent(evs, DELTA)
    assert result.method in {"rdp", "zcdp"}  # GDP is not claimed for discrete noise
    assert result.candidates["gdp"] == math.inf
    assert result.epsilon >= pld_discrete_gaussian(1.0, k) - 1e-3


def test_discrete_gaussian_is_not_dominated_by_the_continuous_curve() -> None:
    # Evidence for not applying GDP to discrete events: at σ = 1, k = 1 the discrete Gaussian's
    # exact ε (≈ 4.43) exceeds the continuous exact ε (4.377).
    assert pld_discrete_gaussian(1.0, 1) > gdp_epsilon(gaussians(1), DELTA) + 0.01


# --------------------------------------------------------------------------- methods


def test_empty_spends_nothing() -> None:
    assert epsilon_spent([], DELTA) == AccountingResult(0.0, "none", {})


def test_pure_events_basic_and_advanced() -> None:
    # One ε₀-DP release: exact RR gives δ(ε) = p(1 − e^{ε−ε₀}), p = e^{ε₀}/(1 + e^{ε₀}), so the
    # exact ε at δ sits a hair below the basic ε₀ — and exact_pure (the tightest) wins.
    one = epsilon_spent([DiscreteLaplaceEvent(0.5)], DELTA)
    p = math.exp(0.5) / (1.0 + math.exp(0.5))
    assert (one.method, one.candidates["basic"]) == ("exact_pure", 0.5)
    assert one.epsilon == pytest.approx(0.5 + math.log1p(-DELTA / p), rel=1e-12)
    assert basic_composition_epsilon([PureDPEvent(0.1)] * 3) == pytest.approx(0.3)
    assert basic_composition_epsilon([DiscreteGaussianEvent(1.0, 1.0)]) == math.inf
    k, e0 = 1000, 0.01
    expected = e0 * math.sqrt(2 * k * math.log(1 / DELTA)) + k * e0 * math.expm1(e0)
    assert advanced_composition_epsilon([PureDPEvent(e0)] * k, DELTA) == pytest.approx(expected)
    assert advanced_composition_epsilon([PureDPEvent(1.0)] * 3, DELTA) == 3.0  # min with basic
    assert advanced_composition_epsilon([ZCDPEvent(0.1)], DELTA) == math.inf


def test_zcdp_and_mixed_events() -> None:
    evs = [ZCDPEvent(0.5), PureDPEvent(1.0), DiscreteGaussianEvent(2.0, 2.0)]
    rho = 0.5 + 0.5 + 0.5
    assert zcdp_epsilon(evs, DELTA) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    result = epsilon_spent(evs, DELTA)
    assert result.epsilon == min(result.candidates.values())
    assert result.candidates["basic"] == result.candidates["gdp"] == math.inf


def test_pure_dp_rdp_curve_is_below_the_simple_bounds() -> None:
    for eps in (0.01, 0.1, 1.0, 5.0):
        for alpha in RDP_ORDERS:
            r = event_rdp(PureDPEvent(eps), alpha)
            assert r <= min(eps, alpha * eps * eps / 2) + 1e-12


def test_gaussian_l2_sensitivity() -> None:
    q = 4
    a = epsilon_spent([ContinuousGaussianEvent(2.0, math.sqrt(q))], DELTA)
    b = epsilon_spent([ContinuousGaussianEvent(1.0, 1.0)], DELTA)
    assert a.epsilon == pytest.approx(b.epsilon, rel=1e-9)


def test_can_afford() -> None:
    assert can_afford(
        [DiscreteLaplaceEvent(0.1)] * 2, [DiscreteLaplaceEvent(0.1)], 0.3, 1e-6
    )  # 0.1·3 vs 0.3
    assert not can_afford([DiscreteLaplaceEvent(0.1)] * 3, [DiscreteLaplaceEvent(0.1)], 0.3, 1e-6)
    assert can_afford(
        [], [ContinuousGaussianEvent(analytic_gaussian_sigma(1.0, 1e-6), 1.0)], 1.0, 1e-6
    )
    with pytest.raises(PrivacyParameterError):
        can_afford([], [DiscreteLaplaceEvent(0.1)], math.nan, 1e-6)


def test_gaussian_sigma_for_budget() -> None:
    cont = gaussian_sigma_for_budget(1.0, DELTA, discrete=False)
    assert cont == pytest.approx(analytic_gaussian_sigma(1.0, DELTA), rel=1e-6)
    disc = gaussian_sigma_for_budget(1.0, DELTA, 2.0)
    assert epsilon_spent([DiscreteGaussianEvent(disc, 2.0)], DELTA).epsilon <= 1.0
    assert disc > 2.0 * cont


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: DiscreteLaplaceEvent(0.0), "epsilon"),
        (lambda: DiscreteLaplaceEvent(math.nan), "epsilon"),
        (lambda: PureDPEvent(math.inf), "epsilon"),
        (lambda: DiscreteGaussianEvent(0.0, 1.0), "sigma"),
        (lambda: DiscreteGaussianEvent(1.0, -1.0), "l2_sensitivity"),
        (lambda: ZCDPEvent(0.0), "rho"),
        (lambda: ZCDPEvent(-0.1), "rho"),
        (lambda: epsilon_spent([DiscreteLaplaceEvent(1.0)], 1.0), "delta"),
        (lambda: epsilon_spent([DiscreteLaplaceEvent(1.0)], 0.0), "delta"),
        (lambda: epsilon_spent(["laplace"], 1e-6), "mechanism"),  # type: ignore[list-item]
    ],
)
def test_invalid_parameters(make, field: str) -> None:
    with pytest.raises(PrivacyParameterError) as info:
        make()
    assert info.value.field == field


# --------------------------------------------------------------------------- properties

event_strategy = st.one_of(
    st.builds(DiscreteLaplaceEvent, st.floats(0.01, 3.0)),
    st.builds(ContinuousLaplaceEvent, st.floats(0.01, 3.0)),
    st.builds(DiscreteGaussianEvent, st.floats(0.3, 50.0), st.floats(0.5, 3.0)),
    st.builds(ContinuousGaussianEvent, st.floats(0.3, 50.0), st.floats(0.5, 3.0)),
    st.builds(PureDPEvent, st.floats(0.01, 3.0)),
    st.builds(ZCDPEvent, st.floats(1e-4, 2.0)),
)


@settings(max_examples=40, deadline=None)
@given(
    events=st.lists(event_strategy, min_size=1, max_size=6),
    extra=event_strategy,
    delta=st.floats(1e-10, 0.1),
)
def test_epsilon_is_monotone_in_events(events, extra, delta: float) -> None:
    before = epsilon_spent(events, delta)
    after = epsilon_spent([*events, extra], delta)
    assert after.epsilon >= before.epsilon - 1e-9
    assert before.epsilon == min(before.candidates.values())


@settings(max_examples=30, deadline=None)
@given(
    sigma=st.floats(0.3, 30.0),
    factor=st.floats(1.0, 4.0),
    k=st.integers(1, 200),
    discrete=st.booleans(),
)
def test_epsilon_is_non_increasing_in_sigma(
    sigma: float, factor: float, k: int, discrete: bool
) -> None:
    small = epsilon_spent(gaussians(k, sigma, discrete), DELTA).epsilon
    large = epsilon_spent(gaussians(k, sigma * factor, discrete), DELTA).epsilon
    assert large <= small + 1e-9
    assert epsilon_spent(gaussians(k + 1, sigma, discrete), DELTA).epsilon >= small - 1e-9


@settings(max_examples=40, deadline=None)
@given(sigma=st.floats(0.3, 30.0), k=st.integers(1, 500), delta=st.floats(1e-12, 0.1))
def test_rdp_and_zcdp_never_below_exact_gdp(sigma: float, k: int, delta: float) -> None:
    evs = gaussians(k, sigma)
    exact = gdp_epsilon(evs, delta)
    assert rdp_epsilon(evs, delta) >= exact - 1e-9
    assert zcdp_epsilon(evs, delta) >= exact - 1e-9


@settings(max_examples=40, deadline=None)
@given(events=st.lists(event_strategy, min_size=1, max_size=5), delta=st.floats(1e-12, 0.1))
def test_tight_rdp_conversion_beats_the_standard_one(events, delta: float) -> None:
    curve = [sum(event_rdp(ev, a) for ev in events) for a in RDP_ORDERS]
    tight, _ = rdp_to_epsilon(RDP_ORDERS, curve, delta)
    standard, _ = rdp_to_epsilon(RDP_ORDERS, curve, delta, tight=False)
    assert tight <= standard + 1e-12


@settings(max_examples=8, deadline=None)
@given(
    sigma=st.sampled_from([0.5, 1.0, 2.0, 5.0]),
    k=st.sampled_from([1, 3, 30]),
    eps0=st.sampled_from([0.05, 0.5, 2.0]),
)
def test_epsilon_spent_never_below_dp_accounting_pld(sigma: float, k: int, eps0: float) -> None:
    assert epsilon_spent(gaussians(k, sigma), DELTA).epsilon >= pld_gaussian(sigma, k, 1e-3) - 2e-3
    assert (
        epsilon_spent(gaussians(k, sigma, True), DELTA).epsilon
        >= pld_discrete_gaussian(sigma, k) - 2e-3
    )
    assert (
        epsilon_spent([DiscreteLaplaceEvent(eps0)] * k, DELTA).epsilon
        >= pld_laplace(eps0, k, True, 1e-3) - 2e-3
    )
