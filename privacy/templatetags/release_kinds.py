"""What the releases panel says about each question, asked of its kind (no kind names here)."""

from __future__ import annotations

from django import template

from surveys.kinds.registry import kind_of
from surveys.models import Question

register = template.Library()


@register.filter
def release_note(question: Question) -> str:
    """The kind's note beside the question's checkbox (what it releases, what it costs)."""
    return kind_of(question).release_note(question)


@register.filter
def groups_releases(question: Question) -> bool:
    """True when a release may be grouped by the question (its kind says)."""
    return kind_of(question).release_groups


@register.filter
def release_selection(question: Question) -> str:
    """What a selection release takes of the question: "quantile", "mode" or "" (its kind)."""
    return kind_of(question).release_selection
