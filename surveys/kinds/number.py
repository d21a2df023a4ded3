"""The ``number`` question kind."""

from __future__ import annotations

from typing import ClassVar

from dpcore.central.release_parts import GridSumPart, ReleasePart
from dpcore.central.sensitivity import number_grid
from surveys.kinds._release import bounds_of
from surveys.kinds.base import QuestionKind, QuestionLike


class NumberKind(QuestionKind):
    name: ClassVar[str] = "number"
    stored_kind: ClassVar[str] = "number"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    def releasable(self, question: QuestionLike) -> bool:
        """Only with both bounds declared: they fix the grid and the sum's sensitivity."""
        return bounds_of(question) is not None

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """The grid sum (Δ = K = ⌈B/s⌉ + 1) and the count (Δ = 1), from the declared bounds only
        (never from the data)."""
        bounds = bounds_of(question)
        if bounds is None:  # the request validator refuses unbounded number questions first
            raise ValueError(f"number question {question.key!r} has no bounds")
        return GridSumPart(number_grid(*bounds))

    def release_note(self, question: QuestionLike) -> str:
        from django.template.defaultfilters import floatformat

        lo = floatformat(getattr(question, "min_value", None), "-3")
        hi = floatformat(getattr(question, "max_value", None), "-3")
        return f": noisy sum and count, mean in [{lo}, {hi}]; counts twice"

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
