"""Input serializer of one question of a survey write (``questions[i]``): its key, text, kind and
the definition its kind accepts (options, bounds, design, flags), and the rules across questions
(unique keys, ``show_if`` references). What differs between kinds is read from the kind registry
(:mod:`surveys.kinds`): no kind is named here.

Errors are named like ``questions[0].design.p_truth`` (:func:`deniable.api_errors.as_field_errors`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from rest_framework import serializers

from deniable.input_fields import (
    BoundedListSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
)
from surveys.definitions import translations
from surveys.definitions.specs import (
    KEY_PATTERN,
    MAX_ABS_NUMBER,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MIN_OPTIONS,
    QuestionSpec,
    ShowIf,
)
from surveys.inputs.design_specs import DesignField, design_help_text, design_spec
from surveys.kinds._definitions import definition_kind
from surveys.models import Question

KEY_MESSAGE = "Use a slug: letters, digits, - or _ (at most 64 characters)."
BOUND_MESSAGE = f"Must lie between {-MAX_ABS_NUMBER:g} and {MAX_ABS_NUMBER:g}."
OPTIONS_MESSAGE = f"Give {MIN_OPTIONS} to {MAX_OPTIONS} options (got %(show_value)d)."


def _bound(help_text: str) -> StrictFloatField:
    return StrictFloatField(
        required=False,
        min_value=-MAX_ABS_NUMBER,
        max_value=MAX_ABS_NUMBER,
        error_messages={"min_value": BOUND_MESSAGE, "max_value": BOUND_MESSAGE},
        help_text=help_text,
    )


class OptionsField(serializers.ListField):
    """A choice or category question's options; an empty list means none (other kinds)."""

    def run_validators(self, value: Any) -> None:
        if value:
            super().run_validators(value)


# --- questions ----------------------------------------------------------------------------------


PER_OPTION_DESIGNS_MESSAGE = (
    "Per-option designs are not supported: give one yes/no design in 'design'; it is applied "
    "to every option independently (docs/api.md#multi)."
)


def _options(kind: str, attrs: Mapping[str, Any]) -> tuple[str, ...]:
    options = attrs.get("options") or []
    if not definition_kind(kind).has_options:  # choice, category, multi
        if options:
            raise serializers.ValidationError({"options": f"A {kind} question has no options."})
        return ()
    if not options:
        raise serializers.ValidationError(
            {"options": f"Give a list of {MIN_OPTIONS} to {MAX_OPTIONS} options."}
        )
    return tuple(options)


def _design(kind: str, attrs: Mapping[str, Any], options: Sequence[str]) -> dict[str, Any]:
    kind_ = definition_kind(kind)
    if not kind_.randomized:
        if attrs.get("design") not in (None, {}):
            message = f"A {kind} question is asked directly and has no design."
            raise serializers.ValidationError({"design": message})
        return {}
    if attrs.get("designs") is not None:
        # A multi question's options share one design (so one coin protocol, one set of words
        # and one ε per option); a per-option map is refused rather than silently ignored.
        raise serializers.ValidationError({"designs": PER_OPTION_DESIGNS_MESSAGE})
    return design_spec(kind, attrs.get("design"), kind_.design_k(options))


def _bounds(kind: str, attrs: Mapping[str, Any]) -> tuple[float | None, float | None]:
    if not definition_kind(kind).has_bounds:  # number
        return None, None
    missing = {n: "A finite number is required." for n in ("min", "max") if n not in attrs}
    if missing:
        raise serializers.ValidationError(missing)
    if not attrs["min"] < attrs["max"]:
        raise serializers.ValidationError({"max": "max must be greater than min."})
    return attrs["min"], attrs["max"]


# Skip logic may only follow what a respondent reports *directly*: were a randomized report to
# decide what is shown next, the next screen (and the absence of an answer in the submission)
# would reveal it, undoing the deniability the randomization bought (docs/api.md#skip-logic).
SHOW_IF_RANDOMIZED = (
    "Skip logic applies to direct questions (category, number) only: a randomized question is "
    "always shown, because its presence must not depend on other answers."
)
SHOW_IF_TARGET_RANDOMIZED = (
    "show_if must follow a category question: a randomized report must never decide what is "
    "shown next, or the next screen would reveal it."
)


class ShowIfInSerializer(serializers.Serializer):
    key = serializers.RegexField(
        KEY_PATTERN,
        max_length=64,
        error_messages={"invalid": KEY_MESSAGE, "max_length": KEY_MESSAGE, "blank": KEY_MESSAGE},
        help_text="The key of an earlier category question.",
    )
    # "in" is a Python keyword: declared below under its JSON name.

    def validate(self, attrs: dict[str, Any]) -> ShowIf:
        return ShowIf(key=attrs["key"], values=tuple(attrs["in"]))


ShowIfInSerializer._declared_fields["in"] = serializers.ListField(
    child=StrictCharField(max_length=MAX_OPTION_LENGTH),
    min_length=1,
    max_length=MAX_OPTIONS,
    error_messages={
        "min_length": "Give at least one option.",
        "empty": "Give at least one option.",
    },
    allow_empty=False,
    help_text="The options of that question for which this question is shown.",
)


class QuestionInSerializer(serializers.Serializer):
    class Meta:
        list_serializer_class = BoundedListSerializer

    key = serializers.RegexField(
        KEY_PATTERN,
        max_length=64,
        error_messages={"invalid": KEY_MESSAGE, "max_length": KEY_MESSAGE, "blank": KEY_MESSAGE},
        help_text="Unique within the survey: a letter or digit, then letters, digits, - or _.",
    )
    text = StrictCharField(
        max_length=translations.TEXT_MAX, help_text="The question as respondents read it."
    )
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    design = DesignField(
        required=False,
        allow_null=True,
        help_text=design_help_text(),
    )
    designs = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="Refused: a multi question takes one shared design in 'design'.",
    )
    options = OptionsField(
        child=StrictCharField(
            max_length=MAX_OPTION_LENGTH,
            error_messages={"blank": "Each option must be a non-empty string."},
        ),
        required=False,
        allow_null=True,
        min_length=MIN_OPTIONS,
        max_length=MAX_OPTIONS,
        error_messages={"min_length": OPTIONS_MESSAGE, "max_length": OPTIONS_MESSAGE},
        help_text="choice, category and multi (required): unique options; other kinds: none.",
    )
    min = _bound("number (required): the lower bound.")
    max = _bound("number (required): the upper bound, greater than min.")
    # DRF's metaclass moves declared fields out of the class, so Field.required is untouched; the
    # stubs cannot know that.
    required = StrictBooleanField(  # type: ignore[assignment]
        required=False,
        default=True,
        help_text="false: respondents may leave it unanswered (estimates count n per question).",
    )
    show_if = ShowIfInSerializer(
        required=False,
        allow_null=True,
        help_text='category and number only: {"key": <an earlier category question>, "in": '
        "[options]}; the question is shown (and may be answered) only for those answers.",
    )
    ordered = StrictBooleanField(
        required=False,
        default=False,
        help_text="choice only: the options are ordered (scores 1..k); estimates add mean_score.",
    )
    integer = StrictBooleanField(
        required=False,
        default=False,
        help_text="number only: answers must be whole numbers (a fraction is refused, 400).",
    )

    def validate_options(self, value: list[str] | None) -> list[str]:
        if value and len(set(value)) != len(value):
            raise serializers.ValidationError("Options must be unique.")
        return value or []

    def validate(self, attrs: dict[str, Any]) -> QuestionSpec:
        kind = attrs["kind"]
        kind_ = definition_kind(kind)
        options = _options(kind, attrs)
        design = _design(kind, attrs, options)
        lo, hi = _bounds(kind, attrs)
        show_if = attrs.get("show_if")
        # Only what a respondent answers directly may be hidden (category, number).
        if show_if is not None and kind_.randomized:
            raise serializers.ValidationError({"show_if": SHOW_IF_RANDOMIZED})
        ordered = attrs.get("ordered", False)
        designed = definition_kind(kind, design)  # a design-selected kind (OUE) may differ
        if ordered and not designed.may_be_ordered:  # choice
            message = "Only a choice question can be ordered (its options scored 1..k)."
            if kind_.may_be_ordered:
                message = f"A {designed.name} design cannot be ordered (no mean score for it)."
            raise serializers.ValidationError({"ordered": message})
        integer = attrs.get("integer", False)
        if integer and not kind_.may_be_integer:  # number
            message = "Only a number question can take whole numbers only."
            raise serializers.ValidationError({"integer": message})
        if integer and lo is not None and hi is not None and math.ceil(lo) > math.floor(hi):
            message = "No whole number lies between min and max."
            raise serializers.ValidationError({"integer": message})
        return QuestionSpec(
            key=attrs["key"],
            text=attrs["text"],
            kind=kind,
            design=design,
            options=options,
            min_value=lo,
            max_value=hi,
            required=attrs.get("required", True),
            show_if=show_if,
            ordered=ordered,
            integer=integer,
        )


def unique_keys(questions: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
    seen: set[str] = set()
    errors: list[dict[str, list[str]]] = []
    for q in questions:
        duplicate = q.key in seen
        seen.add(q.key)
        message = f"Duplicate key {q.key!r}: keys must be unique."
        errors.append({"key": [message]} if duplicate else {})
    if any(errors):
        raise serializers.ValidationError(errors)
    return questions


def _show_if_error(
    show_if: ShowIf, earlier: Mapping[str, QuestionSpec], later: set[str]
) -> str | None:
    """Why a question's ``show_if`` cannot refer to what it names (None: it can)."""
    target = earlier.get(show_if.key)
    if target is None:
        if show_if.key in later:
            return f"{show_if.key!r} comes later: show_if must refer to an earlier question."
        return f"Unknown question {show_if.key!r}."
    target_kind = definition_kind(target.kind)
    if not target_kind.slices_tallies:  # not a category question
        if target_kind.randomized:
            return SHOW_IF_TARGET_RANDOMIZED
        return f"{show_if.key!r} is a {target.kind} question: show_if must follow a category one."
    unknown = [v for v in show_if.values if v not in target.options]
    if unknown:
        return f"Not options of {show_if.key!r}: {', '.join(map(repr, unknown))}."
    if len(set(show_if.values)) != len(show_if.values):
        return "Options must be unique."
    return None


def show_if_references(questions: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
    """Each ``show_if`` names an earlier category question and some of its options."""
    earlier: dict[str, QuestionSpec] = {}
    later = {q.key for q in questions}
    errors: list[dict[str, list[str]]] = []
    for q in questions:
        message = _show_if_error(q.show_if, earlier, later) if q.show_if is not None else None
        errors.append({"show_if": [message]} if message else {})
        earlier[q.key] = q
    if any(errors):
        raise serializers.ValidationError(errors)
    return questions


# --- surveys ------------------------------------------------------------------------------------
