"""The ``number`` question kind."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext as _
from rest_framework import serializers

from deniable.input_fields import is_finite_number
from dpcore import local as rr
from dpcore.central.release_parts import GridSumPart, ReleasePart
from dpcore.central.sensitivity import number_grid
from surveys.definitions.specs import MAX_ABS_NUMBER, Answer
from surveys.kinds import _chart_rows, _fields
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import QuestionCounts, SlotOf
from surveys.kinds._estimates import NumberEstimate
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import bounds_of
from surveys.kinds.base import QuestionKind, QuestionLike


class NumberKind(QuestionKind):
    name: ClassVar[str] = "number"
    stored_kind: ClassVar[str] = "number"
    builder_title: ClassVar[str] = "Non-sensitive number (direct)"
    randomized: ClassVar[bool] = False
    release_selection: ClassVar[str] = "quantile"

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    predictor: ClassVar[bool] = True
    linear_outcome: ClassVar[bool] = True

    has_bounds: ClassVar[bool] = True
    may_be_integer: ClassVar[bool] = True
    tally_moments: ClassVar[bool] = True
    column_type: ClassVar[str] = "number"

    def clean_answer(self, question: Any, value: object) -> Answer:
        """A finite number within the question's bounds (a whole one if it asks for that)."""
        if not is_finite_number(value):
            raise serializers.ValidationError(_("Must be a finite number."))
        number = float(value)  # type: ignore[arg-type]  # is_finite_number checked it
        if abs(number) > MAX_ABS_NUMBER:  # a question stored before the bounds were capped
            raise serializers.ValidationError(
                f"Must be between {-MAX_ABS_NUMBER:g} and {MAX_ABS_NUMBER:g}."
            )
        lo, hi = question.min_value, question.max_value
        if lo is None or hi is None:  # bounds cleared in the admin: nothing can be checked
            raise serializers.ValidationError(
                _("This question has no bounds: it cannot be answered.")
            )
        if not lo <= number <= hi:
            raise serializers.ValidationError(
                _("Must be between %(min)s and %(max)s.") % {"min": f"{lo:g}", "max": f"{hi:g}"}
            )
        if question.integer and not number.is_integer():
            # Refused, never rounded: 2.5 children is a typo or a test, not an answer to store.
            raise serializers.ValidationError(_("Must be a whole number."))
        return number

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return ("",)  # the count; Σx and Σx² follow in the next two slots (tally_moments)

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        first, x = slot(key, ""), float(value)
        vector[first], vector[first + 1], vector[first + 2] = 1.0, x, x * x

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        return mean_estimate(question, counts)

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {"min": question.min_value, "max": question.max_value}
        if question.integer:
            entry["integer"] = True  # whole numbers only
        return entry

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

    def releasable(self, question: QuestionLike) -> bool:
        """Only with both bounds declared: they fix the grid and the sum's sensitivity."""
        return bounds_of(question) is not None

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """The grid sum (Δ = K = ⌈B/s⌉ + 1) and the count (Δ = 1), from the declared bounds only
        (never from the data)."""
        bounds = bounds_of(question)
        if bounds is None:  # the request validator refuses unbounded number questions first
            raise ValueError(f"number question {question.key!r} has no bounds")
        return GridSumPart(number_grid(*bounds))

    def release_note(self, question: QuestionLike) -> str:
        from django.template.defaultfilters import floatformat

        lo = floatformat(getattr(question, "min_value", None), "-3")
        hi = floatformat(getattr(question, "max_value", None), "-3")
        return f": noisy sum and count, mean in [{lo}, {hi}]; counts twice"

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``integer`` (whole numbers) or ``decimal``; bounds from ``constraint``."""
        return row.type_word in ("integer", "decimal")

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.stored_kind, "integer": row.type_word == "integer"}
        if row.bounds is not None:
            out["min"], out["max"] = row.bounds
        if row.design is not None:  # refused by the validator, naming the design cell
            out["design"] = dict(row.design)
        return out

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        constraint = xls.bounds_constraint(question.min_value, question.max_value)
        return xls.XlsformCells(
            "integer" if question.integer else "decimal", cells={"constraint": constraint}
        )

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


def mean_estimate(q: Any, counts: QuestionCounts) -> NumberEstimate:
    """Mean, standard error of the mean (sample SD / √n) and a normal interval.

    x̄ = Σx / n; s² = (Σx² − n·x̄²) / (n − 1); SE = √(s² / n); interval x̄ ± z·SE clipped to the
    question's bounds. (A formula outside the pure core: it should own it; see the read-side
    report.)"""
    n, total, total_sq = counts.n, counts.total, counts.total_sq
    finite = math.isfinite(total) and math.isfinite(total_sq)
    mean = total / n if n and finite else None
    std_error = ci_low = ci_high = None
    if n >= 2 and mean is not None:
        # Σx² − n·x̄² cancels when the spread is small beside the mean: its rounding error is at
        # most ~(n + 2)·u·Σx² (u = 2⁻⁵³, float sums of n terms). A computed variance below that
        # bound is rounding noise, not "0": report the bound (a conservative SE), never 0.0 for
        # data that may differ. Bounds |x| ≤ 1e9 keep Σx² finite (surveys.services.surveys).
        rounding = (n + 2) * 2.0**-53 * total_sq / (n - 1)
        variance = (total_sq - n * mean * mean) / (n - 1)
        std_error = math.sqrt(max(variance, rounding) / n)
        half = rr.z_value(counts.confidence) * std_error
        ci_low, ci_high = mean - half, mean + half
        if q.bounds is not None:  # clip to the declared bounds (the admin may leave them unset)
            ci_low, ci_high = max(q.bounds[0], ci_low), min(q.bounds[1], ci_high)
    return NumberEstimate(
        **counts.header,
        n=n,
        min=q.min_value,
        max=q.max_value,
        mean=mean,
        std_error=std_error,
        ci_low=ci_low,
        ci_high=ci_high,
    )
