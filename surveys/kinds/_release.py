"""Shared helpers of the kinds' release hooks (branch releases): a question's cells, its design's
linear form and its bounds, read for :mod:`dpcore.central.release_parts`.

The kinds return dpcore types only (surveys never imports privacy). The survey modules are
imported inside the functions: the registry imports every kind module at start-up.
"""

from __future__ import annotations

from typing import Any, Protocol

from dpcore.central.release_parts import HistogramPart


class QuestionLike(Protocol):
    """What these helpers read of a question (as :class:`surveys.kinds.base.QuestionLike`,
    restated so that base may import this module without a cycle)."""

    key: str
    kind: str
    options: Any
    design: Any


def linear_form(question: QuestionLike) -> tuple[float, float]:
    """(c, d) with P(report cell) = c·π + d: the design's for yes/no and k-RR, (1, 0) direct."""
    from surveys.kinds import _design as designs

    design = designs.question_design(question)
    if design is None:
        return 1.0, 0.0
    return float(design.c), float(design.d)


def question_cells(question: QuestionLike) -> tuple[str, ...]:
    """The question's tally cells, in slot order
    (:func:`surveys.collection.tally_layout.question_cells`)."""
    from surveys.kinds.registry import kind_of

    return tuple(kind_of(question).tally_cells(question))


def histogram_part(question: QuestionLike, *, share: str | None) -> HistogramPart:
    """One histogram of the question's cells (Δ = 1), debiased by its design; ``share`` is the
    cell whose estimate is the question's (None: one per cell)."""
    c, d = linear_form(question)
    return HistogramPart(question_cells(question), c=c, d=d, share=share)


def bounds_of(question: QuestionLike) -> tuple[float, float] | None:
    """(min, max) declared on a number question; None when either is unset."""
    lo = getattr(question, "min_value", None)
    hi = getattr(question, "max_value", None)
    if lo is None or hi is None:
        return None
    return float(lo), float(hi)
