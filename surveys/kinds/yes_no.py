"""The ``yes_no`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from surveys import designs
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds.base import QuestionKind

if TYPE_CHECKING:
    from surveys.selectors.estimates import BinaryEstimate


class YesNoKind(QuestionKind):
    name: ClassVar[str] = "yes_no"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

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

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
