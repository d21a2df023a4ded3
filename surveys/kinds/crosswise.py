"""The crosswise model (Yu, Tian & Tang 2008): a yes/no question with no randomizer on the page;
the respondent reports whether their answer and an innocuous statement's are the SAME or
DIFFERENT. Its form, words, no-JS page and chart row differ from a randomized yes/no question's,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from surveys.kinds._data import (
    YES_NO_CELLS,
    QuestionCounts,
    SlotOf,
    binary_estimate,
    clean_report,
    metadata_column,
    report_cell,
)
from surveys.kinds.base import QuestionKind, QuestionLike, design_name
from surveys.specs import Answer


def rr_hint(key: str, design: Mapping[str, Any]) -> str:
    """RRreg's call for the column: it holds "same" as 1, as RRreg's Crosswise model codes it."""
    return (
        f'RRreg::RRuni(response = "{key}", data = reports, model = "Crosswise", '
        f"p = {design['innocuous_prevalence']!r})"
    )


class CrosswiseKind(QuestionKind):
    name: ClassVar[str] = "crosswise"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    @staticmethod
    def simulated_report(spec: Mapping[str, Any], truth: bool, u: float) -> bool:
        """A simulated report (``surveys.simulation``): no randomizer, the respondent's
        innocuous fact (true when ``u`` < p) is the randomness; SAME (True) when both agree."""
        return bool((u < spec["innocuous_prevalence"]) == truth)

    comparison: ClassVar[str | None] = "binary"
    power_planning: ClassVar[bool] = True

    def outcome_error(self, key: str) -> str | None:
        return None

    column_type: ClassVar[str] = "integer"

    def design_notes(self) -> dict[str, Any]:
        """The crosswise ε is valid only under this assumption: said wherever ε is shown."""
        from surveys.innocuous import CROSSWISE_ASSUMPTION

        return {"assumption": CROSSWISE_ASSUMPTION}

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_report(value)  # True: SAME

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return YES_NO_CELLS

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        vector[slot(key, report_cell(value))] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        return binary_estimate(question, counts)

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {key: int(value)}

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        """Issue 21.9: every language's innocuous statement, each checked against the library."""
        from surveys.crosswise_statements import crosswise_statements

        statements = crosswise_statements(survey, question)
        return {
            "innocuous_statements": statements,
            "innocuous_verified": all(s["verified"] for s in statements),
        }

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [metadata_column(key, self.column_type, entry, hint=rr_hint)]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
