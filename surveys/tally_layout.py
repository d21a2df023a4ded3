"""The tally vector: which slot of a survey's counter vector counts what.

A survey's counters are stored as *vectors* (``surveys.models.Tally.sums``), one per slice and
shard, rather than one row per cell: a submission then updates one row per slice (all
respondents, plus one per answered category question for ``group_by``) instead of one row per
cell and slice — 3 row updates instead of 31 for the benchmark's 10-question survey.

Slots, in question order (position, id) — fixed for the life of an open survey, because its
questions are frozen once it opens (``survey_update`` refuses non-drafts):

* slot 0: respondents;
* ``yes_no``: "yes", then "no"; with the cheating-detection design one slot per group and
  report instead (:data:`CHEATER_CELLS`: "g1_yes", "g1_no", "g2_yes", "g2_no");
* ``choice`` / ``category``: one slot per option, in option order;
* ``number``: the number of answers, their sum, and the sum of their squares;
* ``multi``: the number of answers (cell ""), then one slot per option counting the YES reports
  of that option (its NO reports are answers − YES: docs/formulas.md#multi).

Every slot is a float64 sum; counts are exact integers up to 2⁵³.

Pure: it reads ``key``/``kind``/``options`` of question-like objects, so the migration that
rebuilds tallies can use it with historical models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

RESPONDENTS_SLOT = 0
ALL_RESPONDENTS: tuple[str, str] = ("", "")  # the (group_key, group_value) of the ungrouped slice


#: A cheating-detection question's cells: the group (drawn on the device) and the report.
CHEATER_CELLS: tuple[str, ...] = ("g1_yes", "g1_no", "g2_yes", "g2_no")


class QuestionLike(Protocol):
    key: str
    kind: str
    options: Any


def is_cheater_question(q: Any) -> bool:
    """A yes/no question with the cheating-detection design (its answers are {group, report})."""
    design = getattr(q, "design", None)
    return (
        q.kind == "yes_no"
        and isinstance(design, Mapping)
        and design.get("name") == ("cheater_detection")
    )


def cheater_cell(value: Mapping[str, Any]) -> str:
    """``{"group": 1, "report": True}`` → "g1_yes"."""
    return f"g{int(value['group'])}_{'yes' if value['report'] else 'no'}"


#: A multi question's cell counting its answers; its other cells are its options (YES reports).
MULTI_ANSWERED = ""


def question_cells(q: Any) -> Sequence[str]:
    """The cell values of a yes_no, choice, category or multi question, in slot order."""
    if q.kind == "multi":
        return [MULTI_ANSWERED, *q.options]
    if q.kind != "yes_no":
        return list(q.options)
    return CHEATER_CELLS if is_cheater_question(q) else ("yes", "no")


@dataclass(frozen=True)
class TallyLayout:
    """``cells[(key, value)]`` is the slot counting that answer (a number question's count is
    ``(key, "")``, its sum and sum of squares the next two slots)."""

    size: int
    cells: Mapping[tuple[str, str], int]
    numbers: Mapping[str, int]
    category_keys: frozenset[str]
    multi_keys: frozenset[str] = frozenset()


def tally_layout(questions: Iterable[QuestionLike]) -> TallyLayout:
    cells: dict[tuple[str, str], int] = {}
    numbers: dict[str, int] = {}
    categories: set[str] = set()
    multis: set[str] = set()
    slot = RESPONDENTS_SLOT + 1
    for q in questions:
        if q.kind == "multi":
            multis.add(q.key)
        if q.kind == "number":
            cells[(q.key, "")] = numbers[q.key] = slot
            slot += 3
            continue
        if q.kind == "category":
            categories.add(q.key)
        for value in question_cells(q):
            cells[(q.key, value)] = slot
            slot += 1
    return TallyLayout(
        size=slot,
        cells=cells,
        numbers=numbers,
        category_keys=frozenset(categories),
        multi_keys=frozenset(multis),
    )


def submission_vector(layout: TallyLayout, answers: Mapping[str, Any]) -> list[float]:
    """What one submission adds to each of its slices: 1 in the respondents slot and in each
    answered cell; a number answer adds (1, x, x²). ``answers`` are validated reported answers
    (bool for yes_no, {group, report} with cheating detection, an option for choice/category,
    a float for number, {option: bool} for multi)."""
    vector = [0.0] * layout.size
    vector[RESPONDENTS_SLOT] = 1.0
    for key, value in answers.items():
        number_slot = layout.numbers.get(key)
        if number_slot is not None:
            x = float(value)
            vector[number_slot] = 1.0
            vector[number_slot + 1] = x
            vector[number_slot + 2] = x * x
        elif key in layout.multi_keys:  # multi: {option: reported bool}, every option present
            vector[layout.cells[(key, MULTI_ANSWERED)]] = 1.0
            for option, reported in value.items():
                if reported is True:
                    vector[layout.cells[(key, option)]] = 1.0
        elif value is True or value is False:
            vector[layout.cells[(key, "yes" if value else "no")]] = 1.0
        elif isinstance(value, Mapping):  # cheating detection: {group, report}
            vector[layout.cells[(key, cheater_cell(value))]] = 1.0
        else:
            vector[layout.cells[(key, value)]] = 1.0
    return vector


def submission_slices(layout: TallyLayout, answers: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (group_key, group_value) slices a submission counts in, sorted — a fixed lock order,
    so concurrent submissions cannot deadlock on the tally rows."""
    slices = [ALL_RESPONDENTS]
    slices += [(key, answers[key]) for key in layout.category_keys if key in answers]
    return sorted(slices)


def vector_add(total: list[float], vector: Sequence[float]) -> None:
    """``total += vector`` in place (a shorter stored vector is padded with zeros)."""
    if len(total) < len(vector):
        total.extend([0.0] * (len(vector) - len(total)))
    for i, x in enumerate(vector):
        total[i] += x


def tally_recount(
    layout: TallyLayout, submissions: Iterable[tuple[Any, Mapping[str, Any]]], shards: int
) -> dict[tuple[str, str, int], list[float]]:
    """{(group_key, group_value, shard): vector} from (submission id, answers) pairs; each
    submission's shard is derived from its id (only the sum over shards means anything)."""
    out: dict[tuple[str, str, int], list[float]] = {}
    for sid, answers in submissions:
        shard = int(str(sid).replace("-", ""), 16) % shards
        vector = submission_vector(layout, answers)
        for group_key, group_value in submission_slices(layout, answers):
            vector_add(out.setdefault((group_key, group_value, shard), []), vector)
    return out
