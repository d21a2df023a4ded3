"""What one submission writes: its answers document and the tally vector it adds to its slices.

A submission is ONE row (its reported answers in a JSON column) plus one counter-vector upsert per
slice it counts in (all respondents, and each answered category question for ``group_by``), so
estimates never read submissions. The slices are sorted: concurrent submissions lock the tally
rows in a fixed order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from surveys.collection.tally_layout import (
    TallyLayout,
    tally_layout,
)
from surveys.models import Question, Survey


@dataclass(frozen=True)
class TallyIncrement:
    """Add ``vector`` to the ``shard`` row of every (group_key, group_value) in ``slices``."""

    survey_id: int
    shard: int
    slices: Sequence[tuple[str, str]]
    vector: Sequence[float]


def survey_tally_layout(survey: Survey, questions: Sequence[Question] | None = None) -> TallyLayout:
    """The survey's slot layout, memoized on the instance (cached surveys compute it once)."""
    layout = getattr(survey, "_tally_layout", None)
    if layout is None:
        layout = tally_layout(questions if questions is not None else survey.questions.all())
        survey._tally_layout = layout
    return layout
