"""The crosswise model (Yu, Tian & Tang 2008): a yes/no question with no randomizer on the page;
the respondent reports whether their answer and an innocuous statement's are the SAME or
DIFFERENT. Its form, words, no-JS page and chart row differ from a randomized yes/no question's,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from surveys.kinds.base import QuestionKind, QuestionLike, design_name


class CrosswiseKind(QuestionKind):
    name: ClassVar[str] = "crosswise"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question (the yes/no kind under this design)."""
        innocuous = "My mother was born in January, February or March."
        return {
            "key": "cross",
            "text": "I have used a fake receipt.",
            "kind": self.stored_kind,
            "design": {
                "name": self.name,
                "innocuous_prevalence": 0.25,
                "innocuous_text": innocuous,
            },
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return True
