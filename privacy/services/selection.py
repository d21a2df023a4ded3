"""Releases by selection (issue 30; docs/formulas.md#selection): a private median or quantile
of a number question, or the most common option of a category/choice question, by the
exponential mechanism sampled exactly (:mod:`dpcore.central.selection`).

Plan → charge → task, as for the noisy releases (:mod:`privacy.services.plan`): the request's
ε is split evenly over its m questions; each question is one exponential mechanism with ε/m,
charged as ``BoundedRangeEvent(ε/m)`` (rounded up) — pure ε/m-DP for the pure accountants,
ε²/8m²-zCDP where they compose. The sampler uses the exact rational Fraction(ε)/m, never above
the charge.

Data: published batches only (DESIGN §8.5), as the noisy releases — the counts of
:func:`surveys.selectors.survey_counts` for a mode, the sealed submissions' answers for a
quantile (clamped to the declared bounds, as the exact sums are). The grid is the question's
release grid (its bounds and step :func:`dpcore.central.sensitivity.number_grid`), from the
design only.

``expected_error`` is data-independent (never the pmf on the data, which would leak before
anything is charged): with probability ≥ 1 − β (β = 0.05) the released point's rank error is
≤ 2·max(q, 1 − q)·ln(N/β)/ε_q values, N grid points (quantile), or the chosen option's count is
within ln(k/β)/ε_q of the largest (mode; debiased: divided by the design's c).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from deniable.errors import InvalidInput
from dpcore.central import event_codec
from dpcore.central.events import BoundedRangeEvent
from dpcore.central.release_entries import ReleaseResults, SelectionEntry
from dpcore.central.selection import (
    QuantileCandidates,
    count_candidates,
    grid_size,
    quantile_candidates,
    rank_error_bound,
    score_gap_bound,
    select,
)
from dpcore.central.sensitivity import number_grid
from privacy.models import Release
from privacy.specs import ReleaseSpec
from surveys.kinds._release import bounds_of, linear_form
from surveys.kinds.registry import kind_of
from surveys.models import Question, Submission, Survey

#: β of the reported error bounds: they hold with probability ≥ 1 − β.
ERROR_BETA = 0.05
CHUNK = 5000


def selection_q(statistic: str, q: float | None) -> float | None:
    """The q a statistic selects: ½ for a median, the request's for a quantile, None for a mode."""
    if statistic == "median":
        return 0.5
    return q if statistic == "quantile" else None


def epsilon_each(epsilon: float, questions: int) -> tuple[Fraction, float]:
    """The exact ε each question's sampler uses and the float charged for it (≥ it)."""
    exact = Fraction(epsilon) / questions
    charged = math.nextafter(float(exact), math.inf)
    while Fraction(charged) < exact:  # pragma: no cover - nextafter of the rounded value
        charged = math.nextafter(charged, math.inf)
    return exact, charged


def selection_events(epsilon: float, questions: int) -> list[BoundedRangeEvent]:
    return [BoundedRangeEvent(epsilon_each(epsilon, questions)[1])] * questions


def _grid_of(question: Question) -> tuple[Fraction, Fraction, Fraction]:
    bounds = bounds_of(question)
    if bounds is None:  # refused by the input validator first
        raise ValueError(f"number question {question.key!r} has no bounds")
    grid = number_grid(*bounds)
    return Fraction(bounds[0]), Fraction(bounds[1]), grid.step


def _published_values(survey: Survey, questions: Sequence[Question]) -> dict[str, list[float]]:
    """Each number question's published answers, clamped to its bounds."""
    bounds = {q.key: bounds_of(q) for q in questions}
    out: dict[str, list[float]] = {key: [] for key in bounds}
    rows = Submission.objects.filter(survey=survey, sealed=True).values_list("answers", flat=True)
    for answers in rows.iterator(chunk_size=CHUNK):
        for key, pair in bounds.items():
            value = answers.get(key)
            if pair is None or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            out[key].append(min(max(float(value), pair[0]), pair[1]))
    return out


def _published_counts(survey: Survey, questions: Sequence[Question]) -> dict[str, dict[str, int]]:
    from surveys.selectors import survey_counts

    if not questions:
        return {}
    counts = survey_counts(survey=survey, question_keys=[q.key for q in questions])
    cells = counts.cells.get("", {})
    return {q.key: dict(cells.get(q.key, {})) for q in questions}


def _answered(survey: Survey, questions: Sequence[Question]) -> dict[str, int]:
    """How many published answers each question has (for the refusal of an empty release)."""
    wants = {q.key: kind_of(q).release_selection for q in questions}
    numbers = [q for q in questions if wants[q.key] == "quantile"]
    options = [q for q in questions if wants[q.key] == "mode"]
    values = _published_values(survey, numbers) if numbers else {}
    counts = _published_counts(survey, options)
    out = {key: len(v) for key, v in values.items()}
    out.update({key: int(sum(c.values())) for key, c in counts.items()})
    return out


def selection_check(*, survey: Survey, questions: Sequence[Question]) -> None:
    """Refuse (400 naming ``questions``, nothing charged) a question with no published answer:
    its release would be a draw from the data-free uniform law, paid for nothing."""
    empty = [key for key, n in _answered(survey, questions).items() if n == 0]
    if empty:
        raise InvalidInput.single(
            "questions", f"No published answers to release yet: {', '.join(empty)}."
        )


def _expected(question: Question, statistic: str, q: float | None, eps: float) -> dict[str, Any]:
    """The data-independent error bound (module notes)."""
    if statistic == "mode":
        options = len(kind_of(question).tally_cells(question))
        c, _ = linear_form(question)
        gap = score_gap_bound(
            members=max(1, options), epsilon=eps, range_sensitivity=1.0, beta=ERROR_BETA
        )
        return {
            "measure": "count_gap",
            "bound": gap / abs(c) if c else math.inf,
            "probability": 1 - ERROR_BETA,
            "candidates": options,
        }
    lo, hi, step = _grid_of(question)
    size = grid_size(lo, hi, step)
    assert q is not None
    return {
        "measure": "rank_error",
        "bound": rank_error_bound(members=size, epsilon=eps, q=q, beta=ERROR_BETA),
        "probability": 1 - ERROR_BETA,
        "candidates": size,
        "grid_step": float(step),
    }


def selection_expected(
    *, questions: Sequence[Question], statistic: str, q: float | None, epsilon: float
) -> list[dict[str, Any]]:
    """Per question: key, statistic, q and the expected error, for the preview."""
    eps = float(epsilon_each(epsilon, len(questions))[0])
    chosen_q = selection_q(statistic, q)
    return [
        {
            "key": question.key,
            "statistic": statistic,
            "q": chosen_q,
            "epsilon": eps,
            "expected_error": _expected(question, statistic, chosen_q, eps),
        }
        for question in questions
    ]


def _quantile_entry(
    question: Question, values: list[float], statistic: str, q: float, eps: Fraction
) -> SelectionEntry:
    lo, hi, step = _grid_of(question)
    grid: QuantileCandidates = quantile_candidates(values, lo=lo, hi=hi, step=step, q=q)
    group, member = select(grid.candidates, eps)
    return SelectionEntry(
        key=question.key,
        kind=question.kind,
        statistic=statistic,
        q=q,
        value=float(grid.value(group, member)),
        option=None,
        epsilon=float(eps),
        expected_error=_expected(question, statistic, q, float(eps)),
    )


def _mode_entry(question: Question, counts: dict[str, int], eps: Fraction) -> SelectionEntry:
    options = list(kind_of(question).tally_cells(question))
    group, _ = select(count_candidates([counts.get(o, 0) for o in options]), eps)
    return SelectionEntry(
        key=question.key,
        kind=question.kind,
        statistic="mode",
        q=None,
        value=None,
        option=options[group],
        epsilon=float(eps),
        expected_error=_expected(question, "mode", None, float(eps)),
    )


def selection_results(
    *, release: Release, survey: Survey, questions: Sequence[Question]
) -> dict[str, Any]:
    """Draw every question's selection; the results' JSON body (stored once, immutable)."""
    assert release.epsilon is not None
    eps, _ = epsilon_each(release.epsilon, len(questions))
    statistic = release.statistic
    q = selection_q(statistic, release.quantile)
    entries: list[SelectionEntry] = []
    if statistic == "mode":
        counts = _published_counts(survey, questions)
        entries = [_mode_entry(question, counts[question.key], eps) for question in questions]
    else:
        assert q is not None
        values = _published_values(survey, questions)
        entries = [
            _quantile_entry(question, values[question.key], statistic, q, eps)
            for question in questions
        ]
    return ReleaseResults(
        confidence=None,
        mechanism=release.mechanism,
        noise_scale=release.noise_scale,
        noise_variance=None,
        group_by=None,
        questions=list(entries),
    ).as_json()


def selection_plan_fields(spec: ReleaseSpec) -> dict[str, Any]:
    """The plan's columns for a selection: ε/m as the scale, m and √m as sensitivities, the
    ledger entry."""
    assert spec.epsilon is not None
    m = len(spec.questions)
    return {
        "noise_scale": m / spec.epsilon,
        "l1_sensitivity": float(m),
        "l2_sensitivity": math.sqrt(m),
        "event": event_codec.encode_release(selection_events(spec.epsilon, m)),
        "contributions": m,
    }
