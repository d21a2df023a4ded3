"""The ``category`` question kind."""

from __future__ import annotations

from typing import Any, ClassVar

from surveys.kinds._data import QuestionCounts, clean_option, options_entry
from surveys.kinds.base import QuestionKind
from surveys.specs import Answer


class CategoryKind(QuestionKind):
    name: ClassVar[str] = "category"
    stored_kind: ClassVar[str] = "category"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    predictor: ClassVar[bool] = True

    has_options: ClassVar[bool] = True
    slices_tallies: ClassVar[bool] = True

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_option(question, value)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option's count and raw share (asked directly: nothing to debias)."""
        from surveys.kinds import _estimates as e

        n = sum(counts.cells.values())
        options = tuple(
            e.CategoryShare(
                option=o, count=counts.cells[o], share=counts.cells[o] / n if n else None
            )
            for o in question.options
        )
        return e.CategoryEstimate(**counts.header, n=n, options=options)

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        return options_entry(question)

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
