"""Sensitivity of a release's questions (the derivation: :mod:`privacy.services.plan`).

The math takes plain values and lives in :mod:`dpcore.central.sensitivity`; these two functions
read what it needs from the ``Question`` rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from dpcore.central import sensitivity
from surveys.models import Question

__all__ = ["contribution_count", "number_grid"]


def contribution_count(questions: Sequence[Question]) -> int:
    """m: one contribution per histogram question, two (sum, count) per number question."""
    return sensitivity.contribution_count(str(q.kind) for q in questions)


def number_grid(question: Question) -> sensitivity.NumberGrid:
    """The grid of a number question, from its declared bounds only (never from the data)."""
    bounds = question.bounds
    if bounds is None:  # plan refuses unbounded number questions before any grid is built
        raise ValueError(f"number question {question.key!r} has no bounds")
    return sensitivity.number_grid(*bounds)
