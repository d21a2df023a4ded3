"""Debiased estimates from the tallies, as typed values (``surveys.api.estimates`` shapes them
into the JSON body of GET …/estimates/ and its CSV; the researcher page renders them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deniable.errors import InvalidInput
from surveys.analysis.confidence import CONFIDENCE_MESSAGE, confidence_or_none
from surveys.analysis.poststratify import Strata, poststratify_entries
from surveys.definitions import question_designs as designs
from surveys.definitions.specs import Poststratification
from surveys.kinds import kind_of
from surveys.kinds._data import QuestionCounts
from surveys.kinds._estimates import (  # re-exported: the typed values each kind returns
    BinaryEstimate as BinaryEstimate,
)
from surveys.kinds._estimates import (
    CategoryEstimate as CategoryEstimate,
)
from surveys.kinds._estimates import (
    CategoryShare as CategoryShare,
)
from surveys.kinds._estimates import (
    CheaterDetectionEstimate as CheaterDetectionEstimate,
)
from surveys.kinds._estimates import (
    ChoiceEstimate as ChoiceEstimate,
)
from surveys.kinds._estimates import (
    EstimateFields as EstimateFields,
)
from surveys.kinds._estimates import (
    MeanScore as MeanScore,
)
from surveys.kinds._estimates import (
    MultiEstimate as MultiEstimate,
)
from surveys.kinds._estimates import (
    MultiOptionEstimate as MultiOptionEstimate,
)
from surveys.kinds._estimates import (
    NumberEstimate as NumberEstimate,
)
from surveys.kinds._estimates import (
    OptionEstimate as OptionEstimate,
)
from surveys.kinds._estimates import (
    QuestionEstimate as QuestionEstimate,
)
from surveys.kinds._estimates import (
    QuestionHeader as QuestionHeader,
)
from surveys.kinds.number import mean_estimate
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
    poststratified_by: str | None = None
    shares: dict[str, float] | None = None


def validate_confidence(value: Any) -> float:
    """A confidence level an interval can be computed at (surveys.analysis.confidence; strings from
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
    """A number question's estimate from its sums (``surveys.kinds.number.mean_estimate``)."""
    counts = QuestionCounts(
        cells={"": sums.n},
        confidence=confidence,
        n=sums.n,
        total=float(sums.total),  # the tallies' float sum (exact Fractions are for releases)
        total_sq=sums.total_sq,
        header=question_header(q),
    )
    return mean_estimate(q, counts)


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
        sums = numbers.get(q.key) or NumberSums(n=0, total=0.0, total_sq=0.0)
        counts = QuestionCounts(
            cells=cells[q.key],
            confidence=confidence,
            n=sums.n,
            total=float(sums.total),
            total_sq=sums.total_sq,
            header=question_header(q),
            design=designs.question_design(q),
            epsilon_per_option=designs.option_epsilon(q),
        )
        kind = kind_of(q)
        entry = kind.estimate(q, counts)
        fit = kind.fit(q, counts)  # docs/analysis.md#goodness-of-fit (None: no test)
        out.append(entry if fit is None else dataclasses.replace(entry, fit=fit))
    return tuple(out)


def _strata(
    sums: dict[Any, Any],
    questions: Sequence[Question],
    spec: Poststratification,
    confidence: float,
) -> Strata:
    """Each stratum with a positive share: its weight and its estimates, as ``group_by`` gives
    them. A stratum ``group_by`` suppresses (fewer than k published respondents) is refused, so
    post-stratifying discloses nothing ``group_by`` does not (its count is not told either)."""
    k = estimate_batch()
    weights, entries = [], []
    for option, weight in spec.shares:
        if weight == 0.0:
            continue
        n_h, c_h, s_h = counts_from(sums, questions, option, skip_key=spec.key)
        if n_h < k:
            raise InvalidInput.single(
                "shares",
                f"Group {option!r} of {spec.key!r} has fewer than {k} published respondents "
                "(group_by suppresses it), so it cannot be weighted: give it share 0 or wait "
                "for more responses.",
            )
        weights.append(weight)
        entries.append({e.key: e for e in _entries(questions, c_h, s_h, confidence)})
    return Strata(weights=tuple(weights), entries=tuple(entries), confidence=confidence)


def survey_estimates(
    *,
    survey: Survey,
    confidence: Any = 0.95,
    group_by: str | None = None,
    poststratify: Poststratification | None = None,
) -> SurveyEstimates:
    """Estimates debiased by ``dpcore.local`` (docs/api.md#estimates), from one aggregate query over
    the tallies; with ``group_by`` the same query also returns every group's cells. With
    ``poststratify`` (validated by ``surveys.inputs.poststratify``) each question's figures are
    post-stratified over that question's groups (docs/analysis.md#post-stratification)."""
    confidence = validate_confidence(confidence)
    questions = questions_of(survey)
    if poststratify is not None and group_by:
        raise InvalidInput.single("poststratify", "Cannot be combined with group_by.")
    group_q = group_question(questions, group_by)
    slice_key = poststratify.key if poststratify is not None else None
    sums = tally_sums(survey, questions, group_q.key if group_q else slice_key)
    respondents, cells, numbers = counts_from(sums, questions, None)
    entries = _entries(questions, cells, numbers, confidence)
    if poststratify is not None:
        strata = _strata(sums, questions, poststratify, confidence)
        entries = poststratify_entries(entries, strata)
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
        questions=entries,
        group_by=group_q.key if group_q is not None else None,
        groups=tuple(groups) if groups is not None else None,
        poststratified_by=slice_key,
        shares=dict(poststratify.shares) if poststratify is not None else None,
    )
