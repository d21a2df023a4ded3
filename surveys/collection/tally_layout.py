"""The tally vector: which slot of a survey's counter vector counts what.

A survey's counters are stored as *vectors* (``surveys.models.Tally.sums``), one per slice and
shard, rather than one row per cell: a submission then updates one row per slice (all
respondents, plus one per answered category question for ``group_by``) instead of one row per
cell and slice — 3 row updates instead of 31 for the benchmark's 10-question survey.

Slots, in question order (position, id) — fixed for the life of an open survey, because its
questions are frozen once it opens (``survey_update`` refuses non-drafts):

* slot 0: respondents;
* then each question's cells, as its kind lays them out (``QuestionKind.tally_cells``): a
  yes/no report "yes", then "no"; cheating detection one slot per group and report ("g1_yes",
  "g1_no", "g2_yes", "g2_no"); a choice or category question one slot per option, in option
  order; a number question the number of answers, their sum and the sum of their squares
  (``tally_moments``); a multi question the number of answers (cell ""), then one slot per
  option counting its YES reports (its NO reports are answers − YES: docs/formulas.md#multi).

Every slot is a float64 sum; counts are exact integers up to 2⁵³.

Pure: it reads ``key``/``kind``/``options``/``design`` of question-like objects (through the
kind registry, which never imports the models), so the migration that rebuilds tallies can use it
with historical models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from surveys.kinds import kind_of
from surveys.kinds.base import QuestionKind, QuestionLike
from surveys.kinds.cheater_detection import CELLS as CHEATER_CELLS
from surveys.kinds.cheater_detection import CheaterDetectionKind
from surveys.kinds.cheater_detection import cell as cheater_cell
from surveys.kinds.multi import ANSWERED as MULTI_ANSWERED

RESPONDENTS_SLOT = 0
ALL_RESPONDENTS: tuple[str, str] = ("", "")  # the (group_key, group_value) of the ungrouped slice

__all__ = [  # the names other modules read (and the aliases kept for them)
    "ALL_RESPONDENTS",
    "CHEATER_CELLS",
    "MULTI_ANSWERED",
    "RESPONDENTS_SLOT",
    "TallyLayout",
    "cheater_cell",
    "is_cheater_question",
    "question_cells",
    "submission_slices",
    "submission_vector",
    "tally_layout",
    "tally_recount",
    "vector_add",
]


def is_cheater_question(q: QuestionLike) -> bool:
    """A yes/no question with the cheating-detection design (kept for the page modules; new
    code asks ``kind_of(q)``)."""
    return isinstance(kind_of(q), CheaterDetectionKind)


def question_cells(q: QuestionLike) -> Sequence[str]:
    """The cell values of a question's tally slots, in slot order (its kind's)."""
    return kind_of(q).tally_cells(q)


@dataclass(frozen=True)
class TallyLayout:
    """``cells[(key, value)]`` is the slot counting that answer (a number question's count is
    ``(key, "")``, its sum and sum of squares the next two slots); ``kinds[key]`` the kind that
    counts the question's answers."""

    size: int
    cells: Mapping[tuple[str, str], int]
    numbers: Mapping[str, int]
    category_keys: frozenset[str]
    kinds: Mapping[str, QuestionKind] = field(default_factory=dict)

    def slot(self, key: str, value: str) -> int:
        return self.cells[(key, value)]


def tally_layout(questions: Iterable[QuestionLike]) -> TallyLayout:
    cells: dict[tuple[str, str], int] = {}
    numbers: dict[str, int] = {}
    slicing: set[str] = set()
    kinds: dict[str, QuestionKind] = {}
    slot = RESPONDENTS_SLOT + 1
    for q in questions:
        kind = kinds[q.key] = kind_of(q)
        if kind.tally_moments:
            numbers[q.key] = slot
        if kind.slices_tallies:
            slicing.add(q.key)
        for value in kind.tally_cells(q):
            cells[(q.key, value)] = slot
            slot += 1
        slot += 2 if kind.tally_moments else 0  # Σx and Σx² after the count
    return TallyLayout(
        size=slot, cells=cells, numbers=numbers, category_keys=frozenset(slicing), kinds=kinds
    )


def submission_vector(layout: TallyLayout, answers: Mapping[str, Any]) -> list[float]:
    """What one submission adds to each of its slices: 1 in the respondents slot and in each
    answered cell; a number answer adds (1, x, x²). ``answers`` are validated reported answers
    (each kind counts its own: ``QuestionKind.count_answer``)."""
    vector = [0.0] * layout.size
    vector[RESPONDENTS_SLOT] = 1.0
    for key, value in answers.items():
        layout.kinds[key].count_answer(vector, layout.slot, key, value)
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
