"""What a release does with one question, as typed values the caller picks (pure).

A part says what the question contributes (:class:`~dpcore.central.sensitivity.Contribution`),
how its counts get noise (:class:`Noiser`, the unit noise scaled per contribution), how its
groups' noisy values add up (post-processing, free), its typed result entry
(:mod:`dpcore.central.release_entries`) and its expected error for the preview. dpcore names no
question kind: the application maps each of its kinds to a part (in Deniable, the kind's
``release_part`` hook).

* :class:`HistogramPart` — one histogram (Δ = 1), debiased by the design's (c, d); its estimate
  is one share (``share``, e.g. "yes") or one per cell.
* :class:`CheaterPart` — a cheating-detection histogram of four cells (group × report): one
  respondent is in one group and gives one report, so Δ = 1 (:mod:`dpcore.central.cheater`).
* :class:`OptionsPart` — k (yes, no) histograms, one per option, each Δ = 1
  (:func:`~dpcore.central.sensitivity.multi_sensitivities`).
* :class:`GridSumPart` — a bounded number: the grid sum U (Δ = K) and the count (Δ = 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dpcore.central import calibration, cheater
from dpcore.central import estimates as release_math
from dpcore.central.release_entries import (
    CheaterEntry,
    CheaterGroup,
    HistogramEntry,
    MultiEntry,
    OptionEstimate,
    OptionHistogram,
    ParameterEntry,
    ProportionEntry,
)
from dpcore.central.release_noise import (
    CountAndSum,
    ExpectedError,
    Noiser,
    ReleasesQuestion,
    need,
)
from dpcore.central.release_sums import GridSumPart, NoisySum
from dpcore.central.sensitivity import (
    Contribution,
    multi_sensitivities,
    unit_contributions,
)
from dpcore.local.cheater import CheaterDetectionDesign, ParameterEstimate

__all__ = [
    "CheaterPart",
    "CountAndSum",
    "ExpectedError",
    "GridSumPart",
    "HistogramPart",
    "Noiser",
    "NoisyOptions",
    "NoisySum",
    "OptionsPart",
    "ReleasePart",
]


def _summed_cells(parts: Sequence[Mapping[str, int]]) -> dict[str, int]:
    summed: dict[str, int] = {}
    for part in parts:
        for cell, value in part.items():
            summed[cell] = summed.get(cell, 0) + value
    return summed


@dataclass(frozen=True)
class _CellsPart(ReleasesQuestion):
    """One histogram (Δ = 1) of the cells ``cells``: each cell gets its own unit draw."""

    cells: tuple[str, ...]

    @property
    def contributions(self) -> tuple[Contribution, ...]:
        return (Contribution(1),)

    @property
    def released_cells(self) -> int | None:
        return len(self.cells)

    def noisy(
        self,
        noiser: Noiser,
        *,
        cells: Mapping[str, int] | None,
        sums: CountAndSum | None = None,
    ) -> dict[str, int]:
        return noiser.cells(need(cells, "cell counts"))

    def summed(self, parts: Sequence[dict[str, int]]) -> dict[str, int]:
        return _summed_cells(parts)


@dataclass(frozen=True)
class HistogramPart(_CellsPart):
    """A histogram debiased with the design's (c, d) (direct questions: (1, 0))."""

    c: float = 1.0
    d: float = 0.0
    #: The cell whose share is the question's estimate; None: an estimate per cell.
    share: str | None = None

    def entry(
        self,
        key: str,
        kind: str,
        noisy: dict[str, int],
        *,
        noiser: Noiser,
        groups: int,
        confidence: float,
    ) -> ProportionEntry | HistogramEntry:
        """The noise variance is G·V for a sum over G groups' noise."""
        variance = noiser.unit.variance * groups
        estimates = release_math.cell_estimates(
            noisy, c=self.c, d=self.d, noise_variance=variance, confidence=confidence
        )
        counts, total = dict(noisy), int(sum(noisy.values()))
        if self.share is None:
            options = [
                OptionEstimate(
                    e.cell,
                    e.noisy_count,
                    e.estimate,
                    e.estimate_unclipped,
                    e.std_error,
                    e.ci_low,
                    e.ci_high,
                )
                for e in estimates
            ]
            return HistogramEntry(
                key, kind, counts, total, variance, None, None, None, None, options
            )
        one = next(e for e in estimates if e.cell == self.share)
        return ProportionEntry(
            key,
            kind,
            counts,
            total,
            variance,
            one.estimate,
            one.estimate_unclipped,
            one.std_error,
            one.ci_low,
            one.ci_high,
        )

    def expected(self, noiser: Noiser, n: float) -> ExpectedError:
        def se(v: float) -> float:
            return calibration.expected_estimate_error(c=self.c, d=self.d, n=n, noise_variance=v)

        return ExpectedError(se(noiser.unit.variance), se(0.0))


def _parameter(p: ParameterEstimate) -> ParameterEntry:
    return ParameterEntry(p.estimate, p.estimate_unclipped, p.std_error, p.ci_low, p.ci_high)


@dataclass(frozen=True)
class CheaterPart(_CellsPart):
    """Cheating detection's four cells (one histogram, Δ = 1) and π, γ, β from them."""

    design: CheaterDetectionDesign

    def entry(
        self,
        key: str,
        kind: str,
        noisy: dict[str, int],
        *,
        noiser: Noiser,
        groups: int,
        confidence: float,
    ) -> CheaterEntry:
        variance = noiser.unit.variance * groups
        est = cheater.estimate_noisy_cheater(
            self.design, noisy, noise_variance=variance, confidence=confidence
        )
        pi = _parameter(est.honest_yes)
        return CheaterEntry(
            key=key,
            kind=kind,
            noisy_counts=dict(noisy),
            noisy_total=int(sum(noisy.values())),
            noise_variance=variance,
            estimate=pi.estimate,
            estimate_unclipped=pi.estimate_unclipped,
            std_error=pi.std_error,
            ci_low=pi.ci_low,
            ci_high=pi.ci_high,
            honest_yes=pi,
            cheaters=_parameter(est.cheaters),
            honest_no=_parameter(est.honest_no),
            at_boundary=est.at_boundary,
            groups=[CheaterGroup(i + 1, est.n[i], est.reported_yes[i]) for i in range(2)],
        )

    def expected(self, noiser: Noiser, n: float) -> ExpectedError:
        return ExpectedError(
            cheater.expected_std_error(self.design, n=n, noise_variance=noiser.unit.variance),
            cheater.expected_std_error(self.design, n=n, noise_variance=0.0),
        )


@dataclass(frozen=True)
class NoisyOptions:
    """k options' noisy histograms: {option: {"yes": ỹ, "no": ñ}}."""

    options: dict[str, dict[str, int]]


@dataclass(frozen=True)
class OptionsPart(ReleasesQuestion):
    """k (yes, no) histograms, one per option (k contributions of Δ = 1). The counts give each
    option's YES reports and, in ``answered_cell``, how many answered (NO = answered − YES)."""

    options: tuple[str, ...]
    answered_cell: str
    c: float = 1.0
    d: float = 0.0

    @property
    def contributions(self) -> tuple[Contribution, ...]:
        return unit_contributions(len(multi_sensitivities(len(self.options))))

    @property
    def released_cells(self) -> int | None:
        return 2  # each released histogram is (YES, NO)

    def noisy(
        self,
        noiser: Noiser,
        *,
        cells: Mapping[str, int] | None,
        sums: CountAndSum | None = None,
    ) -> NoisyOptions:
        counts = need(cells, "cell counts")
        answered = int(counts[self.answered_cell])
        return NoisyOptions(
            {
                option: noiser.cells(
                    {"yes": int(counts[option]), "no": answered - int(counts[option])}
                )
                for option in self.options
            }
        )

    def summed(self, parts: Sequence[NoisyOptions]) -> NoisyOptions:
        return NoisyOptions(
            {
                option: {
                    cell: sum(p.options[option][cell] for p in parts) for cell in ("yes", "no")
                }
                for option in self.options
            }
        )

    def _option(
        self, option: str, counts: dict[str, int], noise_variance: float, confidence: float
    ) -> OptionHistogram:
        yes = next(
            e
            for e in release_math.cell_estimates(
                counts, c=self.c, d=self.d, noise_variance=noise_variance, confidence=confidence
            )
            if e.cell == "yes"
        )
        return OptionHistogram(
            option=option,
            noisy_counts=dict(counts),
            noisy_count=counts["yes"],  # the noisy YES reports (the pages' count column)
            noisy_total=int(sum(counts.values())),
            estimate=yes.estimate,
            estimate_unclipped=yes.estimate_unclipped,
            std_error=yes.std_error,
            ci_low=yes.ci_low,
            ci_high=yes.ci_high,
        )

    def entry(
        self,
        key: str,
        kind: str,
        noisy: NoisyOptions,
        *,
        noiser: Noiser,
        groups: int,
        confidence: float,
    ) -> MultiEntry:
        noise_variance = noiser.unit.variance * groups
        options = [
            self._option(option, counts, noise_variance, confidence)
            for option, counts in noisy.options.items()
        ]
        return MultiEntry(
            key=key,
            kind=kind,
            noisy_counts={o.option: o.noisy_counts for o in options},
            noise_variance=noise_variance,
            # k histograms (one per option), each with the unit noise: L1 = k, L2 = √k.
            contributions=len(options),
            estimate=None,
            std_error=None,
            ci_low=None,
            ci_high=None,
            options=options,
        )

    def expected(self, noiser: Noiser, n: float) -> ExpectedError:
        return HistogramPart(("yes", "no"), self.c, self.d).expected(noiser, n)


ReleasePart = HistogramPart | CheaterPart | OptionsPart | GridSumPart
