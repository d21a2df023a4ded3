"""A bounded number question in a release: its grid sum U = round(S/s) (Δ = K) and its count
(Δ = 1), and their mean (:mod:`dpcore.central.sensitivity` for the grid and K)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dpcore.central import estimates as release_math
from dpcore.central.release_entries import NumberEntry
from dpcore.central.release_noise import (
    CountAndSum,
    ExpectedError,
    Noiser,
    ReleasesQuestion,
    need,
)
from dpcore.central.sensitivity import Contribution, NumberGrid, grid_sum

__all__ = ["GridSumPart", "NoisySum"]


@dataclass(frozen=True)
class NoisySum:
    """A bounded number's noisy grid sum Ũ = U + η_S and noisy count ñ = n + η_n."""

    sum_units: int
    count: int


@dataclass(frozen=True)
class GridSumPart(ReleasesQuestion):
    """A bounded number's grid sum U = round(S/s) (Δ = K) and count (Δ = 1), and their mean."""

    grid: NumberGrid

    @property
    def contributions(self) -> tuple[Contribution, ...]:
        return (Contribution(self.grid.sensitivity), Contribution(1))

    @property
    def released_cells(self) -> int | None:
        return None  # a sum and a count, not a histogram

    def noisy(
        self,
        noiser: Noiser,
        *,
        cells: Mapping[str, int] | None = None,
        sums: CountAndSum | None,
    ) -> NoisySum:
        """Grid the exact sum, then add integer noise to U and n (no data-dependent refusal:
        the sensitivity K holds for any n; issue 11, item 9)."""
        given = need(sums, "the exact count and sum")
        units = grid_sum(given.total, self.grid.step)
        sum_draw = noiser.draws(1, self.grid.sensitivity)[0]
        count_draw = noiser.draws(1)[0]
        return NoisySum(sum_units=units + sum_draw, count=int(given.n) + count_draw)

    def summed(self, parts: Sequence[NoisySum]) -> NoisySum:
        return NoisySum(sum(p.sum_units for p in parts), sum(p.count for p in parts))

    def entry(
        self,
        key: str,
        kind: str,
        noisy: NoisySum,
        *,
        noiser: Noiser,
        groups: int,
        confidence: float,
    ) -> NumberEntry:
        """Variances are of the noise on Ũ (grid units²) and on ñ, G·V over G groups."""
        grid = self.grid
        sum_noise_variance = noiser.scaled_variance(grid.sensitivity) * groups
        noise_variance = noiser.unit.variance * groups
        value_variance = float(grid.step) ** 2 * sum_noise_variance
        est = release_math.number_estimate(
            noisy_sum_units=noisy.sum_units,
            noisy_count=noisy.count,
            step=grid.step,
            lo=grid.lo,
            hi=grid.hi,
            sum_noise_variance=value_variance,
            count_noise_variance=noise_variance,
            confidence=confidence,
        )
        return NumberEntry(
            key=key,
            kind=kind,
            min=grid.lo,
            max=grid.hi,
            grid_step=float(grid.step),
            sum_sensitivity=grid.sensitivity,
            noisy_sum_units=noisy.sum_units,
            noisy_sum=est.noisy_sum,
            noisy_count=est.noisy_count,
            noisy_total=est.noisy_count,
            sum_noise_variance=value_variance,
            sum_std_error=math.sqrt(value_variance),
            noise_variance=noise_variance,
            count_std_error=math.sqrt(noise_variance),
            mean=est.mean,
            estimate=est.mean,
            estimate_unclipped=est.mean_unclipped,
            std_error=est.std_error,
            ci_low=est.ci_low,
            ci_high=est.ci_high,
            note=est.note,
        )

    def expected(self, noiser: Noiser, n: float) -> ExpectedError:
        """SE of the mean at n answers with the worst-case mean² = B² (the preview's formula:
        ((max − min)/2)²/n + (V_S + B²·V_n)/n²); without noise, (max − min)/2/√n."""
        grid = self.grid
        sum_variance = float(grid.step) ** 2 * noiser.scaled_variance(grid.sensitivity)
        bound = max(abs(grid.lo), abs(grid.hi))
        half_range = (grid.hi - grid.lo) / 2.0
        se = math.sqrt(half_range**2 / n + (sum_variance + bound**2 * noiser.unit.variance) / n**2)
        return ExpectedError(
            se,
            half_range / math.sqrt(n),
            value_range=grid.hi - grid.lo,
            grid=grid,
            sum_std_error=math.sqrt(sum_variance),
        )
