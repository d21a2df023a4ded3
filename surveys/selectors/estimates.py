"""Debiased estimates from the tallies, as typed values (``surveys.api.estimates`` shapes them
into the JSON body of GET …/estimates/ and its CSV; the researcher page renders them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deniable.errors import InvalidInput
from dpcore import local as rr
from surveys import designs
from surveys.confidence import CONFIDENCE_MESSAGE, confidence_or_none
from surveys.kinds import kind_of
from surveys.kinds._data import QuestionCounts
from surveys.models import Question, Survey
from surveys.selectors.counts import (
    NumberSums,
    counts_from,
    group_question,
    questions_of,
    tally_sums,
)
from surveys.selectors.surveys import estimate_batch


@dataclass(frozen=True)
class EstimateFields:
    """Point estimate, standard error and interval (None where undefined)."""

    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class QuestionHeader:
    """What every entry starts with (ε and design are None for direct kinds)."""

    key: str
    text: str
    kind: str
    epsilon: float | None
    design: dict[str, Any] | None


@dataclass(frozen=True)
class BinaryEstimate(QuestionHeader, EstimateFields):
    """A yes/no question: the share answering yes, debiased."""

    n: int
    reported_yes: int
    reported_yes_rate: float | None


@dataclass(frozen=True)
class CheaterDetectionEstimate(BinaryEstimate):
    """A yes/no question with the cheating-detection design: ``estimate`` is π (honest yes, as
    ``honest_yes``); ``cheaters`` is γ and ``honest_no`` β, each {estimate, estimate_unclipped,
    std_error, ci_low, ci_high}; ``groups`` the per-group n and reported yes."""

    honest_yes: dict[str, float | None]
    cheaters: dict[str, float | None]
    honest_no: dict[str, float | None]
    at_boundary: bool
    groups: tuple[dict[str, int], ...]


@dataclass(frozen=True)
class OptionEstimate(EstimateFields):
    """One option of a randomized choice question (k-RR)."""

    option: str
    reported: int
    reported_rate: float | None


@dataclass(frozen=True)
class MeanScore(EstimateFields):
    """An ordered choice question's debiased mean score (options scored 1..k in order;
    ``dpcore.local.ordinal``, docs/formulas.md#mean-score)."""

    min: int
    max: int


@dataclass(frozen=True)
class ChoiceEstimate(QuestionHeader):
    """``mean_score`` only for an ordered (Likert) question."""

    n: int
    options: tuple[OptionEstimate, ...]
    mean_score: MeanScore | None = None


@dataclass(frozen=True)
class MultiOptionEstimate(EstimateFields):
    """One option of a randomized multi-select question: the share for whom the option is true,
    debiased through the question's yes/no design (``reported`` counts its YES reports)."""

    option: str
    n: int
    reported: int
    reported_rate: float | None


@dataclass(frozen=True)
class MultiEstimate(QuestionHeader):
    """A multi question: one binary estimate per option (docs/formulas.md#multi); ``n`` answers,
    each of which reported every option. ``epsilon`` is the sum over the options."""

    n: int
    epsilon_per_option: float | None
    options: tuple[MultiOptionEstimate, ...]


@dataclass(frozen=True)
class CategoryShare:
    """One option of a direct category question: its count and raw share."""

    option: str
    count: int
    share: float | None


@dataclass(frozen=True)
class CategoryEstimate(QuestionHeader):
    n: int
    options: tuple[CategoryShare, ...]


@dataclass(frozen=True)
class NumberEstimate(QuestionHeader):
    """A direct number question: mean, standard error of the mean and a normal interval."""

    n: int
    min: float | None
    max: float | None
    mean: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


QuestionEstimate = (
    BinaryEstimate | ChoiceEstimate | CategoryEstimate | NumberEstimate | MultiEstimate
)


@dataclass(frozen=True)
class GroupEstimates:
    """One ``group_by`` group. ``suppressed``: fewer than k published respondents, so no figure
    is given (``respondents`` None, no questions): batches of k hide one arrival in the overall
    figures, not in a group where a batch member may be alone (issue 21, item 15; §8.5)."""

    group: str
    respondents: int | None
    questions: tuple[QuestionEstimate, ...]
    suppressed: bool = False


@dataclass(frozen=True)
class SurveyEstimates:
    """Everything GET …/estimates/ reports; ``groups`` only with ``group_by``."""

    survey: str
    title: str
    status: str
    respondents: int
    planned_n: int | None
    estimate_batch: int
    confidence: float
    epsilon_local_total: float
    questions: tuple[QuestionEstimate, ...]
    group_by: str | None = None
    groups: tuple[GroupEstimates, ...] | None = None


def validate_confidence(value: Any) -> float:
    """A confidence level an interval can be computed at (surveys.confidence; strings from
    query parameters accepted), else a 400 naming ``confidence``."""
    confidence = confidence_or_none(value)
    if confidence is None:
        raise InvalidInput.single("confidence", CONFIDENCE_MESSAGE)
    return confidence


def question_header(q: Question) -> dict[str, Any]:
    """The fields every entry starts with (:class:`QuestionHeader`)."""
    return {
        "key": q.key,
        "text": q.text,
        "kind": q.kind,
        "epsilon": designs.question_epsilon(q),
        "design": designs.design_description(q),
    }


def number_estimate(q: Question, sums: NumberSums, confidence: float) -> NumberEstimate:
    """Mean, standard error of the mean (sample SD / √n) and a normal interval.

    x̄ = Σx / n; s² = (Σx² − n·x̄²) / (n − 1); SE = √(s² / n); interval x̄ ± z·SE clipped to the
    question's bounds. (A formula in a selector: the pure core should own it; see the read-side
    report.)"""
    n = sums.n
    total = float(sums.total)  # the tallies' float sum (exact Fractions are for releases)
    finite = math.isfinite(total) and math.isfinite(sums.total_sq)
    mean = total / n if n and finite else None
    std_error = ci_low = ci_high = None
    if n >= 2 and mean is not None:
        # Σx² − n·x̄² cancels when the spread is small beside the mean: its rounding error is at
        # most ~(n + 2)·u·Σx² (u = 2⁻⁵³, float sums of n terms). A computed variance below that
        # bound is rounding noise, not "0": report the bound (a conservative SE), never 0.0 for
        # data that may differ. Bounds |x| ≤ 1e9 keep Σx² finite (surveys.services.surveys).
        rounding = (n + 2) * 2.0**-53 * sums.total_sq / (n - 1)
        variance = (sums.total_sq - n * mean * mean) / (n - 1)
        std_error = math.sqrt(max(variance, rounding) / n)
        half = rr.z_value(confidence) * std_error
        ci_low, ci_high = mean - half, mean + half
        if q.bounds is not None:  # clip to the declared bounds (the admin may leave them unset)
            ci_low, ci_high = max(q.bounds[0], ci_low), min(q.bounds[1], ci_high)
    return NumberEstimate(
        **question_header(q),
        n=n,
        min=q.min_value,
        max=q.max_value,
        mean=mean,
        std_error=std_error,
        ci_low=ci_low,
        ci_high=ci_high,
    )


def _entries(
    questions: Sequence[Question],
    cells: dict[str, dict[str, int]],
    numbers: dict[str, NumberSums],
    confidence: float,
) -> tuple[QuestionEstimate, ...]:
    out: list[QuestionEstimate] = []
    for q in questions:
        if q.key not in cells:
            continue
        sums = numbers.get(q.key)
        counts = QuestionCounts(cells=cells[q.key], confidence=confidence)
        if sums is not None:  # a number question's moments
            counts = QuestionCounts(
                cells=cells[q.key],
                confidence=confidence,
                n=sums.n,
                total=float(sums.total),
                total_sq=sums.total_sq,
            )
        out.append(kind_of(q).estimate(q, counts))
    return tuple(out)


def survey_estimates(
    *, survey: Survey, confidence: Any = 0.95, group_by: str | None = None
) -> SurveyEstimates:
    """Estimates debiased by ``dpcore.local`` (docs/api.md#estimates), from one aggregate query over
    the tallies; with ``group_by`` the same query also returns every group's cells."""
    confidence = validate_confidence(confidence)
    questions = questions_of(survey)
    group_q = group_question(questions, group_by)
    sums = tally_sums(survey, questions, group_q.key if group_q else None)
    respondents, cells, numbers = counts_from(sums, questions, None)
    groups = None
    if group_q is not None:
        groups = []
        k = estimate_batch()
        for option in group_q.options:
            n_g, c_g, s_g = counts_from(sums, questions, option, skip_key=group_q.key)
            if n_g < k:
                groups.append(GroupEstimates(option, None, (), suppressed=True))
                continue
            groups.append(GroupEstimates(option, n_g, _entries(questions, c_g, s_g, confidence)))
    return SurveyEstimates(
        survey=survey.slug,
        title=survey.title,
        status=survey.status,
        respondents=respondents,
        planned_n=survey.planned_n,
        # Estimates move k submissions at a time (surveys.services.batches).
        estimate_batch=estimate_batch(),
        confidence=confidence,
        epsilon_local_total=designs.epsilon_local_total(questions),
        questions=_entries(questions, cells, numbers, confidence),
        group_by=group_q.key if group_q is not None else None,
        groups=tuple(groups) if groups is not None else None,
    )
