"""Cheating detection (Clark & Desharnais 1998): a yes/no question whose device draws one of two
groups and reports under that group's forced-response design. Its answer is ``{group, report}``,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from surveys.kinds.base import QuestionKind, QuestionLike, design_name


class CheaterDetectionKind(QuestionKind):
    name: ClassVar[str] = "cheater_detection"
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
        groups = [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]
        return {
            "key": "cdm",
            "text": "I have taken a bribe.",
            "kind": self.stored_kind,
            "design": {"name": self.name, "groups": groups},
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return {"group": 2, "report": False}
