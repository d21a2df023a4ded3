"""Release results: add exact integer noise to every contribution and debias.

The noise parameters are the *unit* ones (Δ = 1), scaled per contribution
(:mod:`privacy.services.sensitivity`; the derivation is in :mod:`privacy.services.plan`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dpcore.central import estimates as release_math
from dpcore.central import noise
from dpcore.central.cheater import estimate_noisy_cheater
from dpcore.central.sensitivity import NumberGrid, grid_sum, parameter_variance, scaled_parameter
from privacy.models import Release
from privacy.services.sensitivity import number_grid
from surveys import designs
from surveys.models import Question
from surveys.tally_layout import MULTI_ANSWERED

if TYPE_CHECKING:
    from surveys.selectors import NumberSums


DEFAULT_CONFIDENCE = 0.95


def linear_form(question: Question) -> tuple[float, float]:
    """(c, d) with P(report cell) = c·π + d: the design's for yes/no and k-RR, (1, 0) direct."""
    design = designs.question_design(question)
    if design is None:
        return 1.0, 0.0
    return float(design.c), float(design.d)


def _sample(plan_mechanism: str, parameter: Fraction, size: int) -> list[int]:
    if plan_mechanism == "laplace":
        return noise.sample_discrete_laplace_many(parameter, size)
    return noise.sample_discrete_gaussian_many(parameter, size)


def _noisy_cells(mechanism: str, parameter: Fraction, cells: Mapping[str, int]) -> dict[str, int]:
    keys = list(cells)
    draws = _sample(mechanism, parameter, len(keys))
    return {k: int(cells[k]) + z for k, z in zip(keys, draws, strict=True)}


@dataclass(frozen=True)
class _NoisyMulti:
    """A multi question's noisy histograms, one per option: {option: {"yes": ỹ, "no": ñ}}
    (k contributions of Δ = 1: :func:`dpcore.central.sensitivity.multi_sensitivities`)."""

    options: dict[str, dict[str, int]]


def _noisy_multi(
    mechanism: str, parameter: Fraction, question: Question, cells: Mapping[str, int]
) -> _NoisyMulti:
    """Each option's (YES, NO) histogram with the unit noise on both cells; NO = answers − YES."""
    answered = int(cells[MULTI_ANSWERED])
    return _NoisyMulti(
        {
            option: _noisy_cells(
                mechanism,
                parameter,
                {"yes": int(cells[option]), "no": answered - int(cells[option])},
            )
            for option in question.options
        }
    )


def _multi_result(
    question: Question, noisy: _NoisyMulti, noise_variance: float, confidence: float
) -> dict[str, Any]:
    """Per option the yes/no debiasing of its noisy histogram (the shared design's c, d)."""
    c, d = linear_form(question)
    options = []
    for option, counts in noisy.options.items():
        yes = next(
            e
            for e in release_math.cell_estimates(
                counts, c=c, d=d, noise_variance=noise_variance, confidence=confidence
            )
            if e.cell == "yes"
        )
        options.append(
            {
                "option": option,
                "noisy_counts": dict(counts),
                "noisy_count": counts["yes"],  # the noisy YES reports (the pages' count column)
                "noisy_total": int(sum(counts.values())),
                "estimate": yes.estimate,
                "estimate_unclipped": yes.estimate_unclipped,
                "std_error": yes.std_error,
                "ci_low": yes.ci_low,
                "ci_high": yes.ci_high,
            }
        )
    return {
        "key": question.key,
        "kind": question.kind,
        "noisy_counts": {o["option"]: o["noisy_counts"] for o in options},
        "noise_variance": noise_variance,
        # k histograms (one per option), each with the unit noise: sensitivity k in L1, √k in L2.
        "contributions": len(options),
        "estimate": None,
        "std_error": None,
        "ci_low": None,
        "ci_high": None,
        "options": options,
    }


@dataclass(frozen=True)
class _NoisyNumber:
    """A number question's noisy grid sum Ũ = U + η_S and noisy count ñ = n + η_n."""

    sum_units: int
    count: int


def _noisy_number(
    mechanism: str, unit: Fraction, grid: NumberGrid, sums: NumberSums
) -> _NoisyNumber:
    """Grid the sum (U = round(S/s), exact), then add integer noise to U and n.

    ``sums.total`` is the exact rational sum of the answers (:mod:`surveys.exact_sums`), so the
    sensitivity K holds for any n: there is no data-dependent refusal here (issue 11, item 9).
    """
    units = grid_sum(sums.total, grid.step)
    sum_draw = _sample(mechanism, scaled_parameter(mechanism, unit, grid.sensitivity), 1)[0]
    count_draw = _sample(mechanism, unit, 1)[0]
    return _NoisyNumber(sum_units=units + sum_draw, count=int(sums.n) + count_draw)


def _number_result(
    question: Question,
    grid: NumberGrid,
    noisy: _NoisyNumber,
    sum_noise_variance: float,
    count_noise_variance: float,
    confidence: float,
) -> dict[str, Any]:
    """Result entry of a number question; variances are of the noise on Ũ (grid units²) and ñ."""
    value_variance = float(grid.step) ** 2 * sum_noise_variance
    est = release_math.number_estimate(
        noisy_sum_units=noisy.sum_units,
        noisy_count=noisy.count,
        step=grid.step,
        lo=grid.lo,
        hi=grid.hi,
        sum_noise_variance=value_variance,
        count_noise_variance=count_noise_variance,
        confidence=confidence,
    )
    return {
        "key": question.key,
        "kind": question.kind,
        "min": grid.lo,
        "max": grid.hi,
        "grid_step": float(grid.step),
        "sum_sensitivity": grid.sensitivity,
        "noisy_sum_units": noisy.sum_units,
        "noisy_sum": est.noisy_sum,
        "noisy_count": est.noisy_count,
        "noisy_total": est.noisy_count,
        "sum_noise_variance": value_variance,
        "sum_std_error": math.sqrt(value_variance),
        "noise_variance": count_noise_variance,
        "count_std_error": math.sqrt(count_noise_variance),
        "mean": est.mean,
        "estimate": est.mean,
        "estimate_unclipped": est.mean_unclipped,
        "std_error": est.std_error,
        "ci_low": est.ci_low,
        "ci_high": est.ci_high,
        "note": est.note,
    }


def _parameter(p: Any) -> dict[str, Any]:
    return {
        "estimate": p.estimate,
        "estimate_unclipped": p.estimate_unclipped,
        "std_error": p.std_error,
        "ci_low": p.ci_low,
        "ci_high": p.ci_high,
    }


def _cheater_result(
    question: Question, noisy: Mapping[str, int], noise_variance: float, confidence: float
) -> dict[str, Any]:
    """A cheating-detection question: its four noisy cells (group × report, one histogram) and
    π, γ, β from them (:mod:`dpcore.central.cheater`); ``estimate`` is π."""
    est = estimate_noisy_cheater(
        designs.question_design(question),
        noisy,
        noise_variance=noise_variance,
        confidence=confidence,
    )
    return {
        "key": question.key,
        "kind": question.kind,
        "noisy_counts": dict(noisy),
        "noisy_total": int(sum(noisy.values())),
        "noise_variance": noise_variance,
        **_parameter(est.honest_yes),
        "honest_yes": _parameter(est.honest_yes),
        "cheaters": _parameter(est.cheaters),
        "honest_no": _parameter(est.honest_no),
        "at_boundary": est.at_boundary,
        "groups": [
            {"group": i + 1, "noisy_n": est.n[i], "noisy_reported_yes": est.reported_yes[i]}
            for i in range(2)
        ],
    }


def _question_result(
    question: Question, noisy: Mapping[str, int], noise_variance: float, confidence: float
) -> dict[str, Any]:
    if designs.is_cheater(designs.question_design(question)):
        return _cheater_result(question, noisy, noise_variance, confidence)
    c, d = linear_form(question)
    estimates = release_math.cell_estimates(
        noisy, c=c, d=d, noise_variance=noise_variance, confidence=confidence
    )
    entry: dict[str, Any] = {
        "key": question.key,
        "kind": question.kind,
        "noisy_counts": dict(noisy),
        "noisy_total": int(sum(noisy.values())),
        "noise_variance": noise_variance,
    }
    if question.kind == Question.Kind.YES_NO:
        yes = next(e for e in estimates if e.cell == "yes")
        entry.update(
            estimate=yes.estimate,
            estimate_unclipped=yes.estimate_unclipped,
            std_error=yes.std_error,
            ci_low=yes.ci_low,
            ci_high=yes.ci_high,
        )
    else:
        entry.update(estimate=None, std_error=None, ci_low=None, ci_high=None)
        entry["options"] = [e.as_dict() for e in estimates]
    return entry


@dataclass(frozen=True)
class _Noiser:
    """One release's noise: the mechanism, the unit parameter and variance, the number grids."""

    mechanism: str
    parameter: Fraction
    variance: float
    grids: Mapping[str, NumberGrid]
    sum_variances: Mapping[str, float]
    confidence: float

    def group(
        self,
        questions: Sequence[Question],
        cells: Mapping[str, Mapping[str, int]],
        sums: Mapping[str, NumberSums] | None,
    ) -> dict[str, dict[str, int] | _NoisyNumber | _NoisyMulti]:
        """Noisy counts (and number sums) of one group's cells."""
        out: dict[str, dict[str, int] | _NoisyNumber | _NoisyMulti] = {}
        for q in questions:
            if q.kind == Question.Kind.MULTI:
                out[q.key] = _noisy_multi(self.mechanism, self.parameter, q, cells[q.key])
            elif q.kind == Question.Kind.NUMBER:
                assert sums is not None
                out[q.key] = _noisy_number(
                    self.mechanism, self.parameter, self.grids[q.key], sums[q.key]
                )
            else:
                out[q.key] = _noisy_cells(self.mechanism, self.parameter, cells[q.key])
        return out

    def entry(
        self, q: Question, noisy: dict[str, int] | _NoisyNumber | _NoisyMulti, groups: int
    ) -> dict[str, Any]:
        """The result entry; the noise variances are G·V for a sum over G groups' noise."""
        if isinstance(noisy, _NoisyMulti):
            return _multi_result(q, noisy, self.variance * groups, self.confidence)
        if isinstance(noisy, _NoisyNumber):
            return _number_result(
                q,
                self.grids[q.key],
                noisy,
                self.sum_variances[q.key] * groups,
                self.variance * groups,
                self.confidence,
            )
        return _question_result(q, noisy, self.variance * groups, self.confidence)


def _summed(
    question: Question, parts: Sequence[dict[str, int] | _NoisyNumber | _NoisyMulti]
) -> dict[str, int] | _NoisyNumber | _NoisyMulti:
    """The overall noisy value of a question: its groups' noisy values added up (free)."""
    if question.kind == Question.Kind.MULTI:
        multis = [p for p in parts if isinstance(p, _NoisyMulti)]
        return _NoisyMulti(
            {
                option: {
                    cell: sum(p.options[option][cell] for p in multis) for cell in ("yes", "no")
                }
                for option in question.options
            }
        )
    if question.kind == Question.Kind.NUMBER:
        numbers = [p for p in parts if isinstance(p, _NoisyNumber)]
        return _NoisyNumber(
            sum_units=sum(p.sum_units for p in numbers), count=sum(p.count for p in numbers)
        )
    summed: dict[str, int] = {}
    for part in parts:
        assert isinstance(part, dict)
        for cell, value in part.items():
            summed[cell] = summed.get(cell, 0) + value
    return summed


def release_results(
    *,
    release: Release,
    counts_cells: Mapping[str, Mapping[str, Mapping[str, int]]],
    questions: Sequence[Question],
    noise_parameter: Fraction,
    noise_variance: float,
    counts_sums: Mapping[str, Mapping[str, NumberSums]] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Add noise to every contribution and debias. ``counts_cells``/``counts_sums`` are
    ``SurveyCounts.cells``/``.sums``; ``noise_parameter`` and ``noise_variance`` are the *unit*
    ones (Δ = 1), scaled per contribution (:mod:`privacy.services.plan`).

    With ``group_by`` only the grouped cells get noise; the overall counts (and number sums) are
    their sums (post-processing, free), whose noise variance is G·V for G groups.
    """
    mechanism = release.mechanism
    grids = {q.key: number_grid(q) for q in questions if q.kind == Question.Kind.NUMBER}
    noiser = _Noiser(
        mechanism=mechanism,
        parameter=noise_parameter,
        variance=noise_variance,
        grids=grids,
        sum_variances={
            key: parameter_variance(
                mechanism, scaled_parameter(mechanism, noise_parameter, grid.sensitivity)
            )
            for key, grid in grids.items()
        },
        confidence=confidence,
    )
    sums_by_group = counts_sums or {}
    results: dict[str, Any] = {
        "confidence": confidence,
        "mechanism": mechanism,
        "noise_scale": release.noise_scale,
        "noise_variance": noise_variance,
        "group_by": release.group_by or None,
    }
    if not release.group_by:
        noisy = noiser.group(questions, counts_cells[""], sums_by_group.get(""))
        results["questions"] = [noiser.entry(q, noisy[q.key], 1) for q in questions]
        return results
    groups = list(counts_cells)
    by_group = {g: noiser.group(questions, counts_cells[g], sums_by_group.get(g)) for g in groups}
    results["groups"] = [
        {"group": g, "questions": [noiser.entry(q, by_group[g][q.key], 1) for q in questions]}
        for g in groups
    ]
    results["questions"] = [
        noiser.entry(q, _summed(q, [by_group[g][q.key] for g in groups]), len(groups))
        for q in questions
    ]
    return results
