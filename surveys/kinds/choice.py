"""The ``choice`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from dpcore.local.designs import k_rr
from surveys.kinds.base import QuestionKind


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = "choice"
    stored_kind: ClassVar[str] = "choice"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question."""
        return {
            "key": "vote",
            "text": "Whom did you vote for?",
            "kind": self.stored_kind,
            "options": ["Alpha", "Beta", "Gamma"],
            "design": k_rr(3, 1.2).to_spec(),
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return "Beta"
