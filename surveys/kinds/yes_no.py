"""The ``yes_no`` question kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from dpcore import local as rr
from dpcore.central.release_parts import ReleasePart
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    YES_NO_CELLS,
    QuestionCounts,
    SlotOf,
    binary_estimate,
    clean_report,
    report_cell,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import histogram_part
from surveys.kinds.base import YES_NO_VALUES, ColumnLabels, QuestionKind, QuestionLike

if TYPE_CHECKING:
    from surveys.kinds._estimates import BinaryEstimate


class YesNoKind(QuestionKind):
    name: ClassVar[str] = "yes_no"
    stored_kind: ClassVar[str] = "yes_no"
    builder_title: ClassVar[str] = "Sensitive yes/no (randomized)"
    randomized: ClassVar[bool] = True
    design_shape: ClassVar[str | None] = "binary"

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    comparison: ClassVar[str | None] = "binary"
    power_planning: ClassVar[bool] = True

    def outcome_error(self, key: str) -> str | None:
        return None

    column_type: ClassVar[str] = "integer"

    def default_design_spec(self) -> dict[str, Any] | None:
        return dict(rr.DEFAULT_YES_NO_SPEC)

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_report(value)

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return YES_NO_CELLS

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        vector[slot(key, report_cell(value))] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        return binary_estimate(question, counts)

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {key: int(value)}

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        return {question.key: ColumnLabels(question.text, dict(YES_NO_VALUES))}

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        required = _fields.tick_message()
        field = _fields.yes_no_radios(required=required, label=question.text)
        return {_fields.field_name(question): field}

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        return _protocol.binary_protocol(question)

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        design = designs.question_design(question)
        return {
            "randomizer": _deniability.randomizer(question.options or [], design),
            "reports": _deniability.yes_no_reports(design),
        }

    regression_outcome: ClassVar[bool] = True

    def chart_rows(self, estimate: BinaryEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        return [_chart_rows.row(base, "yes", estimate.n, estimate, "reported_yes_rate")]

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """One histogram (yes, no): Δ = 1, and the share of "yes" is the estimate."""
        return histogram_part(question, share="yes")

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` over a yes/no list with a one-report yes/no design."""
        return row.type_word == "select_one" and row.yes_no_list and row.design_serves("binary")

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return {"kind": self.stored_kind, "design": dict(row.design or {})}

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.yes_no_cells(self.stored_kind)

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
