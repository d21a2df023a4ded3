"""Debiased estimates from the tallies, as typed values (``surveys.api.estimates`` shapes them
into the JSON body of GET …/estimates/ and its CSV; the researcher page renders them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deniable.errors import InvalidInput
from dpcore import local as rr
from dpcore.local.cheater import estimate_cheater_detection
from dpcore.local.ordinal import estimate_mean_score
from surveys import designs
from surveys.confidence import CONFIDENCE_MESSAGE, confidence_or_none
from surveys.models import Question, Survey
from surveys.selectors.counts import (
    NumberSums,
    counts_from,
    group_question,
    questions_of,
    tally_sums,
)
from surveys.selectors.surveys import estimate_batch
from surveys.tally_layout import MULTI_ANSWERED


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


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _header(q: Question) -> dict[str, Any]:
    return {
        "key": q.key,
        "text": q.text,
        "kind": q.kind,
        "epsilon": designs.question_epsilon(q),
        "design": designs.design_description(q),
    }


def _estimate_fields(est: Any) -> dict[str, Any]:
    """Point estimate, SE and interval of an ``rr`` BinaryEstimate or OptionEstimate."""
    return {
        "estimate": _f(est.estimate),
        "estimate_unclipped": _f(est.estimate_unclipped),
        "std_error": _f(est.std_error),
        "ci_low": _f(est.ci_low),
        "ci_high": _f(est.ci_high),
    }


def _cheater(q: Question, cells: dict[str, int], confidence: float) -> CheaterDetectionEstimate:
    """π, γ, β from the per-group counts (``dpcore.local.cheater``, docs/formulas.md)."""
    design = designs.question_design(q)
    n = [cells[f"g{i}_yes"] + cells[f"g{i}_no"] for i in (1, 2)]
    yes = [cells[f"g{i}_yes"] for i in (1, 2)]
    est = estimate_cheater_detection(design, n=n, reported_yes=yes, confidence=confidence)
    total_n, total_yes = sum(n), sum(yes)
    return CheaterDetectionEstimate(
        **_header(q),
        **_estimate_fields(est.honest_yes),
        n=total_n,
        reported_yes=total_yes,
        reported_yes_rate=total_yes / total_n if total_n else None,
        honest_yes=_estimate_fields(est.honest_yes),
        cheaters=_estimate_fields(est.cheaters),
        honest_no=_estimate_fields(est.honest_no),
        at_boundary=bool(est.at_boundary),
        groups=tuple({"group": i + 1, "n": n[i], "reported_yes": yes[i]} for i in range(2)),
    )


def _binary(q: Question, cells: dict[str, int], confidence: float) -> BinaryEstimate:
    design = designs.question_design(q)
    if designs.is_cheater(design):
        return _cheater(q, cells, confidence)
    yes, no = cells["yes"], cells["no"]
    est = rr.estimate_binary(design, n=yes + no, reported_yes=yes, confidence=confidence)
    return BinaryEstimate(
        **_header(q),
        **_estimate_fields(est),
        n=int(est.n),
        reported_yes=int(est.reported_yes),
        reported_yes_rate=_f(est.reported_yes_rate),
    )


def _choice(q: Question, cells: dict[str, int], confidence: float) -> ChoiceEstimate:
    design = designs.question_design(q)
    counts = [cells[o] for o in q.options]
    est = rr.estimate_krr(design, counts=counts, confidence=confidence)
    options = tuple(
        OptionEstimate(
            option=option,
            reported=int(o.reported),
            reported_rate=_f(o.reported_rate),
            **_estimate_fields(o),
        )
        for option, o in zip(q.options, est.options, strict=True)
    )
    mean_score = None
    if q.ordered:
        score = estimate_mean_score(design, counts=counts, confidence=confidence)
        mean_score = MeanScore(**_estimate_fields(score), min=1, max=len(counts))
    return ChoiceEstimate(**_header(q), n=int(est.n), options=options, mean_score=mean_score)


def _multi(q: Question, cells: dict[str, int], confidence: float) -> MultiEstimate:
    """Each option separately: its YES reports among the n answers, debiased by the shared
    design exactly as a yes/no question's (``dpcore.local.estimate_binary``)."""
    design = designs.question_design(q)
    n = cells[MULTI_ANSWERED]
    options = []
    for option in q.options:
        est = rr.estimate_binary(design, n=n, reported_yes=cells[option], confidence=confidence)
        options.append(
            MultiOptionEstimate(
                option=option,
                n=int(est.n),
                reported=int(est.reported_yes),
                reported_rate=_f(est.reported_yes_rate),
                **_estimate_fields(est),
            )
        )
    return MultiEstimate(
        **_header(q),
        n=n,
        epsilon_per_option=designs.option_epsilon(q),
        options=tuple(options),
    )


def _category(q: Question, cells: dict[str, int]) -> CategoryEstimate:
    n = sum(cells.values())
    options = tuple(
        CategoryShare(option=o, count=cells[o], share=(cells[o] / n) if n else None)
        for o in q.options
    )
    return CategoryEstimate(**_header(q), n=n, options=options)


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
        **_header(q),
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
        if q.kind == Question.Kind.YES_NO:
            out.append(_binary(q, cells[q.key], confidence))
        elif q.kind == Question.Kind.CHOICE:
            out.append(_choice(q, cells[q.key], confidence))
        elif q.kind == Question.Kind.CATEGORY:
            out.append(_category(q, cells[q.key]))
        elif q.kind == Question.Kind.MULTI:
            out.append(_multi(q, cells[q.key], confidence))
        else:
            out.append(number_estimate(q, numbers[q.key], confidence))
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
