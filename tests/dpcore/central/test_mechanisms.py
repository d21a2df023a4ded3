"""The typed mechanisms (dpcore.central.mechanisms): each variant's unit noise and events equal
what the string-keyed derivation produced before issue 23 — reproduced below verbatim as the
reference — on a grid of inputs, and :func:`mechanism_of` reads every variant from plain
fields."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import pytest

from dpcore.central import calibration
from dpcore.central.accounting import discrete_gaussian_events, gaussian_sigma_for_budget
from dpcore.central.events import (
    DiscreteLaplaceEvent,
    Event,
    ShiftedDiscreteLaplaceEvent,
    ZCDPEvent,
)
from dpcore.central.mechanisms import (
    DiscreteGaussianApprox,
    DiscreteGaussianRho,
    DiscreteLaplace,
    accounted_sigma,
    mechanism_of,
)
from dpcore.errors import PrivacyParameterError

# ------------------------------------------------------------- the reference: the old derivation


def _old_unit_noise(mechanism, contributions, epsilon=None, rho=None, delta=None, sigma=None,
                    sensitivities=None):  # fmt: skip
    m = contributions
    if mechanism == "laplace":
        t = Fraction(m) / Fraction(epsilon)
        return (t, float(t), calibration.discrete_laplace_variance(float(t)), None)
    if delta is None:
        sigma2 = Fraction(m) / (2 * Fraction(rho))
        scale = math.sqrt(sigma2)
        return (sigma2, scale, calibration.discrete_gaussian_variance(scale), float(rho))
    if sigma is None:
        sigma = gaussian_sigma_for_budget(
            epsilon, delta, math.sqrt(m), discrete=True, sensitivities=sensitivities
        )
    sigma2 = Fraction(sigma) ** 2
    charged_rho = float(Fraction(m) / (2 * sigma2))
    return (sigma2, sigma, calibration.discrete_gaussian_variance(sigma), charged_rho)


def _old_release_events(mechanism, contributions, epsilon, rho, sensitivities=None,
                        parameter=None) -> list[Event]:  # fmt: skip
    if mechanism == "laplace":
        eps_each = math.nextafter(epsilon / contributions, math.inf)
        if not sensitivities:
            return [DiscreteLaplaceEvent(eps_each)] * contributions
        plain: list[Event] = [DiscreteLaplaceEvent(eps_each) for k in sensitivities if k == 1]
        sums: list[Event] = [
            ShiftedDiscreteLaplaceEvent(eps_each, int(k)) for k in sensitivities if k > 1
        ]
        return plain + sums
    if sensitivities and parameter is not None:
        return discrete_gaussian_events(accounted_sigma(parameter), sorted(sensitivities))
    return [ZCDPEvent(math.nextafter(rho, math.inf))]


def _unit(noise) -> tuple[Fraction, float, float, float | None]:
    return (noise.parameter, noise.scale, noise.variance, noise.rho)


SENSITIVITIES: list[Sequence[int] | None] = [None, [1], [1, 1, 1], [1, 1001, 1], [1, 2501, 1, 41]]
EPSILONS = [1e-3, 0.1, 0.5, 1.0, 3.7, 20.0]
RHOS = [1e-6, 0.005, 0.1, 2.0, 50.0]


@pytest.mark.parametrize(("epsilon", "sens"), list(itertools.product(EPSILONS, SENSITIVITIES)))
def test_laplace_noise_and_events_are_the_old_ones(epsilon: float, sens) -> None:
    m = len(sens) if sens else 4
    mech = DiscreteLaplace(epsilon)
    unit = mech.unit_noise(m, sens)
    assert _unit(unit) == _old_unit_noise("laplace", m, epsilon=epsilon)
    assert mech.events(m, unit, sens) == _old_release_events("laplace", m, epsilon, None, sens)
    assert mech.scaled(unit.parameter, 7) == 7 * unit.parameter
    assert mech.analytic_sigma(m) is None


@pytest.mark.parametrize(("rho", "sens"), list(itertools.product(RHOS, SENSITIVITIES)))
def test_gaussian_rho_noise_and_events_are_the_old_ones(rho: float, sens) -> None:
    m = len(sens) if sens else 3
    mech = DiscreteGaussianRho(rho)
    unit = mech.unit_noise(m, sens)
    old = _old_unit_noise("gaussian", m, rho=rho)
    assert _unit(unit) == old
    assert mech.events(m, unit, sens) == _old_release_events(
        "gaussian", m, None, old[3], sens, old[0]
    )
    assert mech.scaled(unit.parameter, 7) == 49 * unit.parameter


@pytest.mark.parametrize(
    ("epsilon", "delta", "sens"),
    [
        (0.5, 1e-5, None),
        (1.0, 1e-6, [1, 1]),
        (2.0, 1e-9, [1, 1001, 1]),
        (0.1, 1e-6, [1, 1, 1, 1, 1]),
    ],
)
def test_gaussian_epsilon_delta_noise_and_events_are_the_old_ones(epsilon, delta, sens) -> None:
    m = len(sens) if sens else 2
    mech = DiscreteGaussianApprox(epsilon, delta)
    unit = mech.unit_noise(m, sens)
    old = _old_unit_noise("gaussian", m, epsilon=epsilon, delta=delta, sensitivities=sens)
    assert _unit(unit) == old
    assert mech.events(m, unit, sens) == _old_release_events(
        "gaussian", m, epsilon, old[3], sens, old[0]
    )
    assert mech.analytic_sigma(m) == calibration.analytic_gaussian_sigma(
        epsilon, delta, math.sqrt(m)
    )
    # At run time the σ recorded with the release is read back, never calibrated again.
    stored = DiscreteGaussianApprox(epsilon, delta, sigma=unit.scale).unit_noise(m)
    assert _unit(stored) == _old_unit_noise(
        "gaussian", m, epsilon=epsilon, delta=delta, sigma=unit.scale
    )
    assert stored.parameter == unit.parameter


def test_mechanism_of_reads_every_variant_from_plain_fields() -> None:
    assert mechanism_of("laplace", epsilon=0.5, sigma=3.0) == DiscreteLaplace(0.5)
    assert mechanism_of("gaussian", rho=0.1, sigma=3.0) == DiscreteGaussianRho(0.1)
    assert mechanism_of("gaussian", epsilon=1.0, delta=1e-6, rho=0.2, sigma=3.0) == (
        DiscreteGaussianApprox(1.0, 1e-6, 3.0)
    )
    assert DiscreteGaussianApprox(1.0, 1e-6, 3.0).with_parameter(2.0) == (
        DiscreteGaussianApprox(2.0, 1e-6)
    )
    assert [m.parameter_name for m in (DiscreteLaplace(1), DiscreteGaussianRho(1))] == [
        "epsilon",
        "rho",
    ]


@pytest.mark.parametrize(
    ("name", "fields", "field"),
    [
        ("laplace", {}, "epsilon"),
        ("gaussian", {}, "rho"),
        ("gaussian", {"delta": 1e-6}, "epsilon"),
        ("cauchy", {"epsilon": 1.0}, "mechanism"),
    ],
)
def test_mechanism_of_names_the_missing_field(name, fields, field) -> None:
    with pytest.raises(PrivacyParameterError) as info:
        mechanism_of(name, **fields)
    assert info.value.field == field
