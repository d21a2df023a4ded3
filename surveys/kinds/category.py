"""The ``category`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from surveys.kinds.base import QuestionKind


class CategoryKind(QuestionKind):
    name: ClassVar[str] = "category"
    stored_kind: ClassVar[str] = "category"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question."""
        return {
            "key": "region",
            "text": "Where do you live?",
            "kind": self.stored_kind,
            "options": ["North", "South"],
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return "South"
