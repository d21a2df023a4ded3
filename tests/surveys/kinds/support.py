"""Helpers for the kind modules' data-layer tests: a question definition through the real input
serializer, an unsaved question row, and one submission's tally vector (no database)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers

from deniable.errors import InvalidInput
from deniable.inputs import validate_input
from surveys.collection.tally_layout import submission_vector, tally_layout
from surveys.definitions.specs import QuestionSpec
from surveys.inputs.questions import QuestionInSerializer
from surveys.kinds._data import QuestionCounts
from surveys.models import Question


def definition(**fields: Any) -> QuestionSpec:
    """A question definition validated as the API validates ``questions[i]``."""
    return validate_input(QuestionInSerializer, {"key": "q", "text": "Q?", **fields}, QuestionSpec)


def definition_errors(**fields: Any) -> dict[str, list[str]]:
    """The field errors of an invalid definition (the field names the API reports)."""
    with pytest.raises(InvalidInput) as refused:
        definition(**fields)
    return refused.value.errors


def question(kind: str, **fields: Any) -> Question:
    """An unsaved row (the kinds read a row's fields; nothing here touches the database)."""
    return Question(key=fields.pop("key", "q"), text="Q?", kind=kind, **fields)


def clean_error(q: Question, value: Any) -> str:
    """The message a refused answer gets (the caller names the field ``answers.<key>``)."""
    from surveys.kinds import kind_of

    with pytest.raises(serializers.ValidationError) as refused:
        kind_of(q).clean_answer(q, value)
    return " ".join(str(m) for m in refused.value.detail)  # type: ignore[union-attr]


def vector(q: Question, answer: Any) -> dict[str, float]:
    """{cell: value} of the question's slots after one submission answering ``answer``
    (number questions: "", "sum", "sum_sq")."""
    layout = tally_layout([q])
    out = submission_vector(layout, {q.key: answer})
    cells = {value: out[slot] for (key, value), slot in layout.cells.items() if key == q.key}
    if q.key in layout.numbers:
        slot = layout.numbers[q.key]
        cells.update({"sum": out[slot + 1], "sum_sq": out[slot + 2]})
    assert out[0] == 1.0  # the respondents slot
    return cells


def counts(q: Question, cells: dict[str, int], **moments: Any) -> QuestionCounts:
    """What the estimates selector hands a kind: the counts, and the question's header and
    design as the selector computes them."""
    from surveys.definitions import question_designs as designs
    from surveys.selectors.estimates import question_header

    return QuestionCounts(
        cells=cells,
        confidence=0.95,
        header=question_header(q),
        design=designs.question_design(q),
        epsilon_per_option=designs.option_epsilon(q),
        **moments,
    )
