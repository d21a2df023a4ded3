"""A release's mechanism as a typed value: discrete Laplace with ε, discrete Gaussian with ρ, or
discrete Gaussian with (ε, δ) — each carrying its own noise derivation and its accounting events
(OpenDP's measurements carry their privacy map; ``dp_accounting``'s events are data).

A release of ``m`` contributions (:class:`~dpcore.central.sensitivity.Contribution`) gets one
*unit* noise (:meth:`Mechanism.unit_noise`, the one place it is derived); a contribution of
sensitivity Δ gets Δ·t (discrete Laplace) or (Δσ)² (discrete Gaussian)
(:meth:`Mechanism.scaled`). The derivation of the privacy argument: :mod:`privacy.services.plan`.
:func:`mechanism_of` reads one from a request's or a stored release's plain fields.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from dpcore.central import calibration, noise
from dpcore.central.accounting import discrete_gaussian_events, gaussian_sigma_for_budget
from dpcore.central.events import (
    DiscreteLaplaceEvent,
    Event,
    ShiftedDiscreteLaplaceEvent,
    ZCDPEvent,
)
from dpcore.errors import PrivacyParameterError

__all__ = [
    "DiscreteGaussianApprox",
    "DiscreteGaussianRho",
    "DiscreteLaplace",
    "Mechanism",
    "UnitNoise",
    "accounted_sigma",
    "mechanism_of",
]


@dataclass(frozen=True)
class UnitNoise:
    """The unit noise of a release of ``m`` contributions (Δ = 1 pieces).

    ``parameter`` is exactly what the sampler gets — t (laplace) or σ² (gaussian) — ``scale`` is
    t or σ as a float (``Release.noise_scale``), ``variance`` the variance of one unit draw, and
    ``rho`` the ρ the gaussian draws cost together (None for laplace).
    """

    parameter: Fraction
    scale: float
    variance: float
    rho: float | None


def accounted_sigma(sigma2: Fraction) -> float:
    """The largest float σ with σ² ≤ the sampler's exact σ²: the σ the ledger names (never above
    the sampled noise, so never under-charging)."""
    sigma = math.sqrt(float(sigma2))
    while Fraction(sigma) ** 2 > sigma2:
        sigma = math.nextafter(sigma, 0.0)
    return sigma


@dataclass(frozen=True)
class DiscreteLaplace:
    """Discrete Laplace with ε: t = m/ε, exactly, for the float ε recorded; each contribution is
    charged ε/m (rounded up)."""

    epsilon: float
    name: ClassVar[str] = "laplace"
    parameter_name: ClassVar[str] = "epsilon"

    def with_parameter(self, value: float) -> DiscreteLaplace:
        return DiscreteLaplace(value)

    def unit_noise(
        self, contributions: int, sensitivities: Sequence[int] | None = None
    ) -> UnitNoise:
        t = Fraction(contributions) / Fraction(self.epsilon)
        return UnitNoise(t, float(t), calibration.discrete_laplace_variance(float(t)), None)

    def events(
        self, contributions: int, unit: UnitNoise, sensitivities: Sequence[int] | None = None
    ) -> list[Event]:
        """``DiscreteLaplaceEvent(ε₀)`` per Δ = 1 contribution, ``ShiftedDiscreteLaplaceEvent(ε₀,
        K)`` per grid sum of sensitivity K (issue 13); histograms first, so identical events stay
        adjacent (one ledger part each). Without ``sensitivities``, m plain events."""
        eps_each = math.nextafter(self.epsilon / contributions, math.inf)
        if not sensitivities:
            return [DiscreteLaplaceEvent(eps_each)] * contributions
        plain: list[Event] = [DiscreteLaplaceEvent(eps_each) for k in sensitivities if k == 1]
        sums: list[Event] = [
            ShiftedDiscreteLaplaceEvent(eps_each, int(k)) for k in sensitivities if k > 1
        ]
        return plain + sums

    def scaled(self, unit: Fraction, sensitivity: int) -> Fraction:
        """The sampler parameter of a contribution of sensitivity Δ: Δ·t."""
        return unit * sensitivity

    def variance(self, parameter: Fraction) -> float:
        return calibration.discrete_laplace_variance(float(parameter))

    def sample(self, parameter: Fraction, size: int) -> list[int]:
        return noise.sample_discrete_laplace_many(parameter, size)

    def analytic_sigma(self, contributions: int) -> float | None:
        return None


class _DiscreteGaussian:
    """What the two discrete Gaussian variants share: Δ²σ² per contribution, the sampler, and
    the events (the discrete Gaussians themselves at the accounted σ given the contributions'
    sensitivities, else one ``ZCDPEvent(ρ)``)."""

    name: ClassVar[str] = "gaussian"

    def events(
        self, contributions: int, unit: UnitNoise, sensitivities: Sequence[int] | None = None
    ) -> list[Event]:
        if sensitivities:
            # Sorted by Δ: identical events adjacent (one ledger part per Δ); order immaterial.
            return discrete_gaussian_events(accounted_sigma(unit.parameter), sorted(sensitivities))
        assert unit.rho is not None  # every gaussian unit noise carries its ρ
        return [ZCDPEvent(math.nextafter(unit.rho, math.inf))]

    def scaled(self, unit: Fraction, sensitivity: int) -> Fraction:
        """The sampler parameter of a contribution of sensitivity Δ: Δ²·σ²."""
        return unit * sensitivity * sensitivity

    def variance(self, parameter: Fraction) -> float:
        return calibration.discrete_gaussian_variance(math.sqrt(parameter))

    def sample(self, parameter: Fraction, size: int) -> list[int]:
        return noise.sample_discrete_gaussian_many(parameter, size)


@dataclass(frozen=True)
class DiscreteGaussianRho(_DiscreteGaussian):
    """Discrete Gaussian with ρ (zCDP): σ² = m/(2ρ)."""

    rho: float
    parameter_name: ClassVar[str] = "rho"

    def with_parameter(self, value: float) -> DiscreteGaussianRho:
        return DiscreteGaussianRho(value)

    def unit_noise(
        self, contributions: int, sensitivities: Sequence[int] | None = None
    ) -> UnitNoise:
        sigma2 = Fraction(contributions) / (2 * Fraction(self.rho))
        scale = math.sqrt(sigma2)
        return UnitNoise(
            sigma2, scale, calibration.discrete_gaussian_variance(scale), float(self.rho)
        )

    def analytic_sigma(self, contributions: int) -> float | None:
        return None


@dataclass(frozen=True)
class DiscreteGaussianApprox(_DiscreteGaussian):
    """Discrete Gaussian with (ε, δ): σ = :func:`~dpcore.central.accounting.
    gaussian_sigma_for_budget` at Δ₂ = √m (the smallest σ whose charged ε is ≤ ε) — against the
    discrete Gaussian's own privacy profile for exactly the contributions' ``sensitivities``
    when given (issue 13) — or ``sigma``, the σ already calibrated and recorded with the
    release. σ² = Fraction(σ)², ρ = m/(2σ²)."""

    epsilon: float
    delta: float
    sigma: float | None = None
    parameter_name: ClassVar[str] = "epsilon"

    def with_parameter(self, value: float) -> DiscreteGaussianApprox:
        return DiscreteGaussianApprox(value, self.delta)

    def unit_noise(
        self, contributions: int, sensitivities: Sequence[int] | None = None
    ) -> UnitNoise:
        sigma = self.sigma
        if sigma is None:
            sigma = gaussian_sigma_for_budget(
                self.epsilon,
                self.delta,
                math.sqrt(contributions),
                discrete=True,
                sensitivities=sensitivities,
            )
        sigma2 = Fraction(sigma) ** 2
        rho = float(Fraction(contributions) / (2 * sigma2))
        return UnitNoise(sigma2, sigma, calibration.discrete_gaussian_variance(sigma), rho)

    def analytic_sigma(self, contributions: int) -> float | None:
        """The analytic Gaussian σ (Balle & Wang 2018), for comparison only: it is proven for
        continuous noise, not the discrete Gaussian sampled."""
        return calibration.analytic_gaussian_sigma(
            self.epsilon, self.delta, math.sqrt(contributions)
        )


Mechanism = DiscreteLaplace | DiscreteGaussianRho | DiscreteGaussianApprox


def mechanism_of(
    name: str,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    rho: float | None = None,
    sigma: float | None = None,
) -> Mechanism:
    """The mechanism named ``name`` ("laplace" or "gaussian") with its parameters: laplace takes
    ε; gaussian ρ when δ is None, else ε and δ (and the calibrated σ, once a release recorded it).

    Raises :class:`~dpcore.errors.PrivacyParameterError` naming a missing parameter or an
    unknown mechanism.
    """
    if name == DiscreteLaplace.name:
        if epsilon is None:
            raise PrivacyParameterError("epsilon", "required for the laplace mechanism")
        return DiscreteLaplace(epsilon)
    if name != _DiscreteGaussian.name:
        raise PrivacyParameterError("mechanism", f"unknown mechanism {name!r}")
    if delta is None:
        if rho is None:
            raise PrivacyParameterError("rho", "give rho, or epsilon and delta")
        return DiscreteGaussianRho(rho)
    if epsilon is None:
        raise PrivacyParameterError("epsilon", "required with delta")
    return DiscreteGaussianApprox(epsilon, delta, sigma)
