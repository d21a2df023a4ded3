"""Shared helpers of the kinds' page-hook tests: an unsaved question, a rendered partial."""

from __future__ import annotations

from typing import Any

from django import forms
from django.template.loader import get_template

from surveys.kinds import kind_of
from surveys.models import Question


def question(kind: str, design: Any = None, options: Any = None, **extra: Any) -> Question:
    """An unsaved question (the page hooks never read the database)."""
    return Question(
        key="q1",
        text="The question?",
        kind=kind,
        design=design or {},
        options=options or [],
        **extra,
    )


def form_field(q: Question, name: str = "q-q1") -> forms.Field:
    return kind_of(q).form_fields(q, {})[name]


def values(field: forms.Field) -> list[str]:
    """The radio values without their padding (issue 11 item 5)."""
    choices: Any = field.choices  # type: ignore[attr-defined]
    return [str(value).rstrip(" ") for value, _ in choices]


def template_source(q: Question) -> str:
    """The kind's respondent partial, found by its name (a missing one raises)."""
    template: Any = get_template(kind_of(q).template_name)
    return str(template.template.source)
