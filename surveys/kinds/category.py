"""The ``category`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.utils.translation import gettext as _

from dpcore.central.release_parts import ReleasePart
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _fields
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import QuestionCounts, clean_option, options_entry
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import histogram_part
from surveys.kinds.base import ColumnLabels, QuestionKind, QuestionLike, option_values

if TYPE_CHECKING:
    from surveys.kinds._estimates import CategoryEstimate


class CategoryKind(QuestionKind):
    name: ClassVar[str] = "category"
    stored_kind: ClassVar[str] = "category"
    builder_title: ClassVar[str] = "Non-sensitive category (direct)"
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

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        return {question.key: ColumnLabels(question.text, option_values(question))}

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        field = forms.ChoiceField(
            choices=_fields.shown_options(question.options, labels),
            widget=forms.RadioSelect,
            label=question.text,
            error_messages={"required": _("Choose an answer.")},
        )
        return {_fields.field_name(question): field}

    groups_results: ClassVar[bool] = True
    regression_predictor: ClassVar[bool] = True

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        return {"options": list(question.options)}

    def chart_rows(self, estimate: CategoryEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        # Asked directly: the share is the estimate, with no randomization to undo.
        e = estimate
        return [
            _chart_rows.row(base, o.option, e.n, o, "share", "share", direct=True)
            for o in e.options
        ]

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """One histogram of its options (Δ = 1), an estimate per option."""
        return histogram_part(question, share=None)

    release_groups: ClassVar[bool] = True
    release_selection: ClassVar[str] = "mode"

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` without a design: asked directly."""
        return row.type_word == "select_one" and row.design is None

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return {"kind": self.stored_kind, "options": list(row.options)}

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.option_list("select_one", question.key, question.options)

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
