"""Hostile inputs (contracts in tests/fuzz/hostile.py): the pure dpcore functions (designs,
estimates, planning, intervals, calibration, accounting, noise, release math) return a result
without NaN or raise a documented error, never hang."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcore import local as rr
from dpcore.central import accounting, noise, sensitivity
from dpcore.central import calibration as calibrate
from dpcore.central import estimates as release_math
from dpcore.local import cheater as rr_cheater
from dpcore.local import intervals as rr_intervals
from tests.fuzz.hostile import (
    FAST,
    call_checked,
    draw_kwargs,
    hostile,
    maybe,
)

COIN = rr.forced_response(0.5, 0.25, 0.25)
KRR3 = rr.k_rr(3, 1.0)
SPECS: list[dict[str, Any]] = [
    {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25},
    {"name": "warner", "p": 0.75},
    {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.5},
    {"name": "k_rr", "epsilon": 1.0},
    {"name": "two_probability", "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
    {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "Born in March."},
]


@FAST
@given(data=st.data())
def test_rr_design_from_spec(data: st.DataObject) -> None:
    spec = data.draw(st.sampled_from(SPECS), label="spec")
    hostile_spec = data.draw(
        st.one_of(
            st.builds(dict, st.just(draw_kwargs(data, spec))),
            hostile,
        ),
        label="hostile spec",
    )
    k = maybe(data, 3, "k") if spec["name"] == "k_rr" else None
    design = call_checked(rr.design_from_spec, hostile_spec, k=k)
    if design is not None:
        assert design.epsilon > 0
        assert not math.isnan(design.epsilon)


@FAST
@given(data=st.data())
def test_rr_design_constructors(data: st.DataObject) -> None:
    call_checked(
        rr.forced_response, **draw_kwargs(data, {"p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25})
    )
    call_checked(rr.warner, **draw_kwargs(data, {"p": 0.75}))
    call_checked(
        rr.unrelated_question, **draw_kwargs(data, {"p": 0.5, "innocuous_prevalence": 0.3})
    )
    call_checked(rr.k_rr, **draw_kwargs(data, {"k": 3, "epsilon": 1.0}))
    call_checked(
        rr.two_probability, **draw_kwargs(data, {"p_yes_if_trait": 0.7, "p_yes_if_not": 0.2})
    )
    call_checked(
        rr.crosswise, **draw_kwargs(data, {"innocuous_prevalence": 0.25, "innocuous_text": "x"})
    )
    call_checked(
        rr_cheater.design_from_spec,
        {
            "name": "cheater_detection",
            "groups": data.draw(st.one_of(hostile, st.lists(hostile, max_size=3)), label="groups"),
        },
    )
    call_checked(rr.optimal_forced_response, **draw_kwargs(data, {"epsilon": 1.0}))


@FAST
@given(data=st.data())
def test_rr_estimates(data: st.DataObject) -> None:
    call_checked(
        rr.estimate_binary,
        COIN,
        **draw_kwargs(
            data, {"n": 100, "reported_yes": 40, "confidence": 0.95, "interval": "wilson"}
        ),
    )
    counts = data.draw(
        st.one_of(st.just([10, 20, 30]), st.lists(hostile, max_size=4), hostile), label="counts"
    )
    call_checked(
        rr.estimate_krr,
        KRR3,
        counts=counts,
        **draw_kwargs(data, {"confidence": 0.95, "interval": "wald"}),
    )


@FAST
@given(data=st.data())
def test_rr_planning(data: st.DataObject) -> None:
    design = data.draw(st.sampled_from([COIN, KRR3]), label="design")
    call_checked(
        rr.sample_size,
        design,
        **draw_kwargs(data, {"half_width": 0.05, "prior": 0.2, "confidence": 0.95}),
    )
    call_checked(
        rr.planned_half_width,
        design,
        **draw_kwargs(data, {"n": 1000, "prior": 0.2, "confidence": 0.95}),
    )
    call_checked(rr.sample_size_direct, **draw_kwargs(data, {"half_width": 0.05, "prior": None}))
    call_checked(rr.deniability, COIN, maybe(data, 0.1, "prior"))
    call_checked(rr.krr_deniability, KRR3, maybe(data, 0.3, "prior"))
    call_checked(rr.variance_bound, **draw_kwargs(data, {"epsilon": 1.0, "pi": 0.3, "n": 100}))


@FAST
@given(data=st.data())
def test_rr_intervals(data: st.DataObject) -> None:
    call_checked(rr_intervals.z_value, maybe(data, 0.95, "confidence"))
    call_checked(
        rr_intervals.wilson_interval,
        **draw_kwargs(data, {"successes": 3, "n": 10, "confidence": 0.9}),
    )
    call_checked(
        rr_intervals.point_and_interval,
        **draw_kwargs(data, {"rate": 0.4, "n": 100, "c": 0.5, "d": 0.25, "z": 1.96}),
    )


# --------------------------------------------------------------------------- calibrate


@FAST
@given(data=st.data())
def test_calibrate(data: st.DataObject) -> None:
    call_checked(
        calibrate.analytic_gaussian_sigma,
        **draw_kwargs(data, {"epsilon": 1.0, "delta": 1e-6, "l2_sensitivity": 2.0}),
    )
    call_checked(
        calibrate.classical_gaussian_sigma,
        **draw_kwargs(data, {"epsilon": 0.5, "delta": 1e-6, "l2_sensitivity": 1.0}),
    )
    call_checked(
        calibrate.laplace_scale, **draw_kwargs(data, {"epsilon": 1.0, "l1_sensitivity": 1.0})
    )
    call_checked(
        calibrate.rho_from_sigma, **draw_kwargs(data, {"sigma": 2.0, "l2_sensitivity": 1.0})
    )
    call_checked(calibrate.sigma_from_rho, **draw_kwargs(data, {"rho": 0.5, "l2_sensitivity": 1.0}))
    call_checked(calibrate.discrete_laplace_variance, maybe(data, 3.0, "scale"))
    call_checked(calibrate.discrete_gaussian_variance, maybe(data, 3.0, "sigma"))
    call_checked(
        calibrate.expected_estimate_error,
        **draw_kwargs(data, {"c": 0.5, "d": 0.25, "n": 100.0, "noise_variance": 4.0}),
    )


# --------------------------------------------------------------------------- accounting


EVENT_TYPES: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (accounting.DiscreteLaplaceEvent, {"epsilon": 0.5}),
    (accounting.ContinuousLaplaceEvent, {"epsilon": 0.5}),
    (accounting.PureDPEvent, {"epsilon": 0.5}),
    (accounting.DiscreteGaussianEvent, {"sigma": 3.0, "l2_sensitivity": 1.0}),
    (accounting.ContinuousGaussianEvent, {"sigma": 3.0, "l2_sensitivity": 1.0}),
    (accounting.ZCDPEvent, {"rho": 0.1}),
]


@st.composite
def events(draw: st.DrawFn) -> list[Any]:
    """A list of events built from possibly hostile parameters, plus possibly junk entries."""
    out: list[Any] = []
    for _ in range(draw(st.integers(0, 4), label="events")):
        cls, valid = draw(st.sampled_from(EVENT_TYPES), label="event type")
        params = {k: draw(st.one_of(st.just(v), hostile), label=k) for k, v in valid.items()}
        event = call_checked(cls, **params)
        if event is not None:
            out.append(event)
    if draw(st.booleans(), label="junk event"):
        out.append(draw(hostile, label="junk"))
    return out


@FAST
@given(data=st.data(), evs=events())
def test_accounting(data: st.DataObject, evs: list[Any]) -> None:
    delta = maybe(data, 1e-6, "delta")
    result = call_checked(accounting.epsilon_spent, evs, delta)
    if result is not None:
        assert result.epsilon >= 0
    call_checked(accounting.advanced_composition_epsilon, evs, delta)
    call_checked(accounting.basic_composition_epsilon, evs)
    call_checked(accounting.zcdp_epsilon, evs, delta)
    call_checked(accounting.rdp_epsilon, evs, delta)
    call_checked(accounting.gdp_epsilon, evs, delta)
    call_checked(accounting.exact_pure_epsilon, evs, delta)
    call_checked(accounting.can_afford, evs, [], maybe(data, 10.0, "epsilon_total"), delta)
    call_checked(
        accounting.gaussian_sigma_for_budget,
        **draw_kwargs(data, {"epsilon": 1.0, "delta": 1e-6, "l2_sensitivity": 2.0}),
    )


@pytest.mark.parametrize("epsilon", [709.0, 710.0, 1e4, 1e6])
def test_advanced_composition_overflow(epsilon: float) -> None:
    """Regression: e^ε overflowed (OverflowError → a 500 on the release API) above ε ≈ 709."""
    events = [accounting.DiscreteLaplaceEvent(epsilon)] * 3
    advanced = accounting.advanced_composition_epsilon(events, 1e-6)
    assert advanced == accounting.basic_composition_epsilon(events)
    spent = accounting.epsilon_spent(events, 1e-6)
    assert not math.isnan(spent.epsilon)
    assert spent.epsilon >= epsilon


# --------------------------------------------------------------------------- noise


@FAST
@given(data=st.data())
def test_noise_samplers(data: st.DataObject) -> None:
    scale = data.draw(
        st.one_of(
            st.just(Fraction(3, 2)),
            hostile,
            st.sampled_from([Fraction(1, 10**400), Fraction(10**400), 10**400, 1e300, 5e-324]),
        ),
        label="scale",
    )
    size = data.draw(st.one_of(st.integers(0, 5), hostile), label="size")
    for sample in (noise.sample_discrete_laplace, noise.sample_discrete_gaussian):
        value = call_checked(sample, scale)
        assert value is None or isinstance(value, int)
    for many in (noise.sample_discrete_laplace_many, noise.sample_discrete_gaussian_many):
        values = call_checked(many, scale, size)
        assert values is None or all(isinstance(v, int) for v in values)


# --------------------------------------------------------------------------- release_math


@FAST
@given(data=st.data())
def test_release_math(data: st.DataObject) -> None:
    call_checked(release_math.z_value, maybe(data, 0.95, "confidence"))
    call_checked(
        release_math.wilson_bounds, **draw_kwargs(data, {"rate": 0.3, "n": 50.0, "z": 1.96})
    )
    call_checked(
        release_math.count_estimate,
        **draw_kwargs(data, {"noisy_count": 10.0, "noisy_total": 50.0, "c": 0.5, "d": 0.25}),
    )
    counts = data.draw(
        st.one_of(
            st.just({"yes": 10, "no": 30}),
            st.dictionaries(st.sampled_from(["yes", "no", "x"]), hostile, max_size=3),
        ),
        label="noisy_counts",
    )
    call_checked(
        release_math.cell_estimates,
        counts,
        **draw_kwargs(data, {"c": 0.5, "d": 0.25, "noise_variance": 2.0, "confidence": 0.95}),
    )
    bounds = draw_kwargs(data, {"lo": 0.0, "hi": 80.0})
    step = call_checked(sensitivity.grid_step, **bounds)
    call_checked(sensitivity.sum_sensitivity, **bounds)
    call_checked(sensitivity.max_safe_respondents, **bounds)
    call_checked(
        sensitivity.grid_sum,
        maybe(data, 123.5, "total"),
        maybe(data, step if step is not None else Fraction(1, 8), "step"),
    )
    call_checked(
        release_math.number_estimate,
        **draw_kwargs(
            data,
            {
                "noisy_sum_units": 400,
                "noisy_count": 10,
                "step": Fraction(1, 8),
                "lo": 0.0,
                "hi": 80.0,
                "sum_noise_variance": 4.0,
                "count_noise_variance": 2.0,
                "confidence": 0.95,
            },
        ),
    )
