"""The ``number`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from surveys.kinds.base import QuestionKind


class NumberKind(QuestionKind):
    name: ClassVar[str] = "number"
    stored_kind: ClassVar[str] = "number"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question."""
        return {
            "key": "age",
            "text": "How old are you?",
            "kind": self.stored_kind,
            "min": 18,
            "max": 99,
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return 41
