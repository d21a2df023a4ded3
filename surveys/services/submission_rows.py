"""The rows one submission writes: its reports and the tally cells it increments.

Tallies are counters upserted in the submission's own transaction, so estimates never read
reports; the cells are sorted, so concurrent submissions lock them in a fixed order.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from surveys.models import Question, Survey


def tally_rows(
    survey: Survey, questions: Sequence[Question], answers: dict[str, Any], shard: int
) -> list[tuple]:
    """The counter cells one submission increments, sorted (fixed lock order → no deadlocks)."""
    cells: list[tuple[str, str, float]] = [("", "", 0.0)]  # respondents
    for q in questions:
        if q.key not in answers:
            continue
        value = answers[q.key]
        if q.kind == Question.Kind.YES_NO:
            cells.append((q.key, "yes" if value else "no", 0.0))
        elif q.kind == Question.Kind.NUMBER:
            cells.append((q.key, "", float(value)))
        else:
            cells.append((q.key, value, 0.0))
    rows: list[tuple] = []
    for key, value, number in cells:
        rows.append((survey.pk, key, value, "", "", shard, 1, number, number * number))
    for g in questions:
        if g.kind != Question.Kind.CATEGORY or g.key not in answers:
            continue
        group_value = answers[g.key]
        for key, value, number in cells:
            if key == g.key:
                continue
            rows.append((survey.pk, key, value, g.key, group_value, shard, 1, number, number**2))
    rows.sort(key=lambda r: (r[1], r[2], r[3], r[4]))
    return rows


def report_rows(
    sid: uuid.UUID, questions: Sequence[Question], answers: dict
) -> list[tuple[uuid.UUID, uuid.UUID, int, bool | None, str | None, float | None]]:
    """(id, submission_id, question_id, value_bool, value_text, value_number) per answer."""
    rows = []
    for q in questions:
        if q.key not in answers:
            continue
        value = answers[q.key]
        b = t = n = None
        if q.kind == Question.Kind.YES_NO:
            b = value
        elif q.kind == Question.Kind.NUMBER:
            n = value
        else:
            t = value
        rows.append((uuid.uuid4(), sid, q.pk, b, t, n))
    return rows
