"""Report counts per cell, read from the tallies through the survey's slot layout.

``survey_counts`` is what releases and estimates start from: one aggregate query over the sharded
``Tally`` vectors (``surveys.selectors.sql``), plus the unsealed tail for releases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from deniable.errors import InvalidInput
from surveys.collection.tally_layout import (
    RESPONDENTS_SLOT,
    question_cells,
    submission_slices,
    submission_vector,
    tally_layout,
)
from surveys.kinds import kind_of
from surveys.models import UNSEALED, Question, Submission, Survey
from surveys.selectors.sql import slice_totals


def questions_of(survey: Survey) -> list[Question]:
    return list(survey.questions.all())


@dataclass(frozen=True)
class NumberSums:
    """Sufficient statistics of a number question's answers.

    ``total`` is a float when read from the tallies (estimates) and the exact rational sum when
    read from the stored submissions for a release (:mod:`surveys.analysis.exact_sums`)."""

    n: int
    total: float | Fraction
    total_sq: float


@dataclass(frozen=True)
class SurveyCounts:
    """Counts of *reports*, from the tallies.

    ``cells[group][question_key][cell_value]``: ``group`` is "" without ``group_by``, else each
    option of the ``group_by`` question (all present, zeros included). Cell values: "yes"/"no" for
    yes_no ("g1_yes", "g1_no", "g2_yes", "g2_no" with cheating detection), each option for
    choice/category, "" (the number of answers) for number questions,
    whose sums are in ``sums[group][question_key]``. ``respondents`` is the overall total;
    ``group_respondents[group]`` the total per group.
    """

    respondents: int
    cells: dict[str, dict[str, dict[str, int]]]
    sums: dict[str, dict[str, NumberSums]] = field(default_factory=dict)
    group_by: str | None = None
    group_respondents: dict[str, int] = field(default_factory=dict)


def _empty_cells(question: Question) -> dict[str, int]:
    return dict.fromkeys(question_cells(question), 0)


def group_question(questions: Sequence[Question], group_by: str | None) -> Question | None:
    if group_by is None or group_by == "":
        return None
    for q in questions:
        if q.key == group_by:
            if not kind_of(q).slices_tallies:
                raise InvalidInput.single(
                    "group_by", f"{group_by!r} is not a category question; only those group."
                )
            return q
    raise InvalidInput.single("group_by", f"Unknown question {group_by!r}.")


@dataclass
class CellSums:
    count: int = 0
    total: float = 0.0
    total_sq: float = 0.0


def _add_unsealed(
    survey: Survey, layout: Any, group_by: str | None, totals: dict[str | None, list[float]]
) -> None:
    """Add the unsealed tail's report vectors (not in the tallies yet; releases count them)."""
    rows = Submission.objects.filter(UNSEALED, survey=survey).values_list("answers", flat=True)
    for answers in rows:
        vector = submission_vector(layout, answers)
        for group_key, group_value in submission_slices(layout, answers):
            if group_key and group_key != group_by:
                continue
            acc = totals.setdefault(group_value if group_key else None, [])
            acc.extend([0.0] * (len(vector) - len(acc)))
            for i, value in enumerate(vector):
                acc[i] += value


def tally_sums(
    survey: Survey,
    questions: Sequence[Question],
    group_by: str | None,
    include_unsealed: bool = False,
) -> dict[tuple[str | None, str, str], CellSums]:
    """The slices' totals read through the survey's slot layout:
    {(group_value | None, key, value): sums}.

    ``group_value`` is None for the ungrouped slice; with ``group_by`` both the ungrouped and the
    grouped slices come back from the same query. ``include_unsealed`` adds the submissions not
    yet published in a batch (releases: their noise protects them; estimates never do).
    """
    layout = tally_layout(questions)
    out: dict[tuple[str | None, str, str], CellSums] = {}
    totals = slice_totals(survey, group_by)
    if include_unsealed:
        _add_unsealed(survey, layout, group_by, totals)
    for group, total in totals.items():
        total.extend([0.0] * (layout.size - len(total)))
        out[(group, "", "")] = CellSums(int(total[RESPONDENTS_SLOT]))
        for (key, value), slot in layout.cells.items():
            out[(group, key, value)] = CellSums(int(total[slot]))
        for key, slot in layout.numbers.items():
            out[(group, key, "")] = CellSums(int(total[slot]), total[slot + 1], total[slot + 2])
    return out


def counts_from(
    sums: dict[tuple[str | None, str, str], CellSums],
    questions: Sequence[Question],
    group: str | None,
    skip_key: str | None = None,
) -> tuple[int, dict[str, dict[str, int]], dict[str, NumberSums]]:
    respondents = sums.get((group, "", ""), CellSums()).count
    cells: dict[str, dict[str, int]] = {}
    numbers: dict[str, NumberSums] = {}
    for q in questions:
        if q.key == skip_key:
            continue
        cell = _empty_cells(q)
        for value in cell:
            cell[value] = sums.get((group, q.key, value), CellSums()).count
        cells[q.key] = cell
        if kind_of(q).tally_moments:
            s = sums.get((group, q.key, ""), CellSums())
            numbers[q.key] = NumberSums(n=s.count, total=s.total, total_sq=s.total_sq)
    return respondents, cells, numbers


def survey_counts(
    *,
    survey: Survey,
    question_keys: Sequence[str] | None = None,
    group_by: str | None = None,
    include_unsealed: bool = False,
) -> SurveyCounts:
    """Report counts per cell (for releases and estimates). Unknown keys → InvalidInput.

    ``include_unsealed``: also the submissions of the batch not yet published (releases)."""
    questions = all_questions = questions_of(survey)
    group_q = group_question(questions, group_by)
    if question_keys is not None:
        known = {q.key for q in questions}
        unknown = [k for k in question_keys if k not in known]
        if unknown:
            raise InvalidInput.single("questions", f"Unknown question(s): {', '.join(unknown)}.")
        wanted = set(question_keys)
        questions = [q for q in questions if q.key in wanted]
    sums = tally_sums(survey, all_questions, group_q.key if group_q else None, include_unsealed)
    respondents, cells, numbers = counts_from(sums, questions, None)
    if group_q is None:
        return SurveyCounts(
            respondents=respondents,
            cells={"": cells},
            sums={"": numbers},
            group_respondents={"": respondents},
        )
    grouped_cells: dict[str, dict[str, dict[str, int]]] = {}
    grouped_sums: dict[str, dict[str, NumberSums]] = {}
    group_respondents: dict[str, int] = {}
    for option in group_q.options:
        n_g, c_g, s_g = counts_from(sums, questions, option, skip_key=group_q.key)
        grouped_cells[option], grouped_sums[option], group_respondents[option] = c_g, s_g, n_g
    return SurveyCounts(
        respondents=respondents,
        cells=grouped_cells,
        sums=grouped_sums,
        group_by=group_q.key,
        group_respondents=group_respondents,
    )
