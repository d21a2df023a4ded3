"""The ``yes_no`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from surveys.kinds.base import QuestionKind


class YesNoKind(QuestionKind):
    name: ClassVar[str] = "yes_no"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question (under the design spec ``design`` when given:
        the matrix test runs one question per design this kind accepts)."""
        question: dict[str, object] = {
            "key": f"yn_{design['name']}" if design else "yn",
            "text": "Have you ever cheated on an exam?",
            "kind": self.stored_kind,
        }
        if design:
            question["design"] = dict(design)
        return question

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return True
