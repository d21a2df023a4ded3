"""Sensitivity of a release's questions (the derivation: :mod:`privacy.services.plan`).

The math takes plain values and lives in :mod:`dpcore.central.sensitivity`; these two functions
read what it needs from the ``Question`` rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from dpcore.central import sensitivity
from surveys.models import Question

__all__ = ["contribution_count", "contribution_sensitivities", "number_grid"]


def contribution_count(questions: Sequence[Question]) -> int:
    """m: one contribution per histogram question, two (sum, count) per number question, one per
    option of a multi question."""
    return sensitivity.contribution_count((str(q.kind), len(q.options or [])) for q in questions)


def number_grid(question: Question) -> sensitivity.NumberGrid:
    """The grid of a number question, from its declared bounds only (never from the data)."""
    bounds = question.bounds
    if bounds is None:  # plan refuses unbounded number questions before any grid is built
        raise ValueError(f"number question {question.key!r} has no bounds")
    return sensitivity.number_grid(*bounds)


def contribution_sensitivities(questions: Sequence[Question]) -> list[int]:
    """Δ_j of every contribution, in order: 1 per histogram; K (grid sum) and 1 (count) per
    number question. Its length is :func:`contribution_count`.

    A cheating-detection question is one histogram of four cells (group × report): the group is
    drawn on the respondent's device, so each respondent sits in exactly one group and gives one
    report — one count in one of the four cells, as a yes/no respondent's one count in "yes" or
    "no". Adding or removing a respondent changes one cell by one: Δ = 1, not one per group.

    A multi question of k options is k histograms (YES/NO per option), each Δ = 1: a respondent
    moves one cell of every option (:func:`dpcore.central.sensitivity.multi_sensitivities`)."""
    out: list[int] = []
    for q in questions:
        if q.kind == Question.Kind.NUMBER:
            out.extend([number_grid(q).sensitivity, 1])
        elif q.kind == Question.Kind.MULTI:
            out.extend(sensitivity.multi_sensitivities(len(q.options or [])))
        else:
            out.append(1)
    return out
