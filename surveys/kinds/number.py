"""The ``number`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.utils.translation import gettext as _

from surveys.kinds import _chart_rows, _fields
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds.base import QuestionKind

if TYPE_CHECKING:
    from surveys.selectors.estimates import NumberEstimate


class NumberKind(QuestionKind):
    name: ClassVar[str] = "number"
    stored_kind: ClassVar[str] = "number"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        # Parsing only: the bounds are checked by the submission serializer's rule (the form's
        # ``clean``); the attributes let the browser say so before posting.
        attrs = {
            "min": question.min_value,
            "max": question.max_value,
            "step": 1 if question.integer else "any",
        }
        field = forms.FloatField(
            widget=forms.NumberInput(attrs=attrs),
            label=question.text,
            error_messages={"required": self._missing_message(question)},
        )
        return {_fields.field_name(question): field}

    @staticmethod
    def _missing_message(question: PageQuestion) -> str:
        """The no-JS form's words for an unanswered required question, the JS page's words."""
        if question.bounds is not None:
            lo, hi = question.bounds
            return _("Enter a number from %(min)s to %(max)s.") % {
                "min": f"{lo:g}",
                "max": f"{hi:g}",
            }
        return _("Enter a number.")

    def error_anchor(self, question: PageQuestion) -> str:
        return f"id_{_fields.field_name(question)}"  # the number's input, not a radio

    def form_answer(self, question: PageQuestion, data: Mapping[str, Any]) -> Any:
        value = super().form_answer(question, data)
        if value is not None and float(value).is_integer():
            return int(value)  # 3.0 from the form is the whole number 3
        return value

    regression_predictor: ClassVar[bool] = True

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        return {"min": question.min_value, "max": question.max_value, "integer": question.integer}

    def chart_rows(self, estimate: NumberEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        e = estimate
        return [_chart_rows.row(base, "mean", e.n, e, None, "mean", proportion=False)]

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
