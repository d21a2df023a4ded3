"""The ``category`` question kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from django import forms
from django.utils.translation import gettext as _

from surveys.kinds import _fields
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds.base import QuestionKind


class CategoryKind(QuestionKind):
    name: ClassVar[str] = "category"
    stored_kind: ClassVar[str] = "category"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        field = forms.ChoiceField(
            choices=_fields.shown_options(question.options, labels),
            widget=forms.RadioSelect,
            label=question.text,
            error_messages={"required": _("Choose an answer.")},
        )
        return {_fields.field_name(question): field}

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
