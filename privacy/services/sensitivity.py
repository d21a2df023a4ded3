"""Sensitivity of a release's questions (the derivation: :mod:`privacy.services.plan`).

Each question's kind says what it contributes (``release_part``/``release_contributions`` on
:mod:`surveys.kinds`, typed :class:`dpcore.central.sensitivity.Contribution` values); the math
takes plain values and lives in :mod:`dpcore.central`.
"""

from __future__ import annotations

from collections.abc import Sequence

from dpcore.central.release_parts import ReleasePart
from surveys.kinds.registry import kind_of
from surveys.models import Question

__all__ = ["contribution_count", "contribution_sensitivities", "release_part"]


def release_part(question: Question) -> ReleasePart:
    """What a release does with the question (its kind's choice)."""
    return kind_of(question).release_part(question)


def contribution_sensitivities(questions: Sequence[Question]) -> list[int]:
    """Δ_j of every contribution, in question order: 1 per histogram, K (grid sum) and 1 (count)
    per number question, 1 per option of a multi question. Its length is m."""
    return [
        contribution.sensitivity
        for q in questions
        for contribution in kind_of(q).release_contributions(q)
    ]


def contribution_count(questions: Sequence[Question]) -> int:
    """m: how many independently noised pieces the questions add to a release."""
    return len(contribution_sensitivities(questions))
