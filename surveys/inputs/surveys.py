"""Input serializers: THE validator of every survey write (API, pages, commands, tests).

Each serializer's ``validate`` returns a frozen spec (:mod:`surveys.specs`) that the services
take as typed keyword arguments. The rules are stated as DRF field arguments wherever they can be
(ranges, lengths, patterns, enums), so the OpenAPI document states them too; the rules that
depend on another field (a kind's options, design or bounds) are in ``validate``. Designs are
validated by :mod:`dpcore.local` (their one copy of the rules); one-sided designs (ε = ∞) and
designs the respondent's browser cannot run exactly (:mod:`dpcore.local.browser`) are refused.

Errors are named like ``questions[0].design.p_truth`` (:func:`deniable.api_errors.as_field_errors`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from rest_framework import serializers

from deniable.input_fields import (
    BoundedListSerializer,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    UTCDateTimeField,
)
from deniable.inputs import validate_input
from dpcore.central import calibration as calibrate
from surveys import designs, translations
from surveys.freeze import budget_epsilon_error
from surveys.inputs.design_specs import (
    DesignField,
    design_help_text,
    design_spec,
)
from surveys.models import Question, Survey
from surveys.specs import (
    KEY_PATTERN,
    MAX_ABS_NUMBER,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MIN_OPTIONS,
    RESERVED_SLUGS,
    SLUG_MAX,
    SLUG_PATTERN,
    TITLE_MAX,
    QuestionSpec,
    ShowIf,
    SurveyChanges,
    SurveySpec,
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a dev-only package: for the annotation only

SLUG_MESSAGE = (
    f"Use 3 to {SLUG_MAX} lowercase letters, digits or hyphens, starting and ending with a "
    "letter or digit."
)
KEY_MESSAGE = "Use a slug: letters, digits, - or _ (at most 64 characters)."
MAX_COUNT = 2_000_000_000  # response_cap, planned_n
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


OPTION_KINDS = (Question.Kind.CHOICE, Question.Kind.CATEGORY, Question.Kind.MULTI)
PER_OPTION_DESIGNS_MESSAGE = (
    "Per-option designs are not supported: give one yes/no design in 'design'; it is applied "
    "to every option independently (docs/api.md#multi)."
)


def _options(kind: str, attrs: Mapping[str, Any]) -> tuple[str, ...]:
    options = attrs.get("options") or []
    if kind not in OPTION_KINDS:
        if options:
            raise serializers.ValidationError({"options": f"A {kind} question has no options."})
        return ()
    if not options:
        raise serializers.ValidationError(
            {"options": f"Give a list of {MIN_OPTIONS} to {MAX_OPTIONS} options."}
        )
    return tuple(options)


def _design(kind: str, attrs: Mapping[str, Any], options: Sequence[str]) -> dict[str, Any]:
    if kind not in designs.RANDOMIZED_KINDS:
        if attrs.get("design") not in (None, {}):
            message = f"A {kind} question is asked directly and has no design."
            raise serializers.ValidationError({"design": message})
        return {}
    if attrs.get("designs") is not None:
        # A multi question's options share one design (so one coin protocol, one set of words
        # and one ε per option); a per-option map is refused rather than silently ignored.
        raise serializers.ValidationError({"designs": PER_OPTION_DESIGNS_MESSAGE})
    return design_spec(kind, attrs.get("design"), len(options) if kind == "choice" else None)


def _bounds(kind: str, attrs: Mapping[str, Any]) -> tuple[float | None, float | None]:
    if kind != Question.Kind.NUMBER:
        return None, None
    missing = {n: "A finite number is required." for n in ("min", "max") if n not in attrs}
    if missing:
        raise serializers.ValidationError(missing)
    if not attrs["min"] < attrs["max"]:
        raise serializers.ValidationError({"max": "max must be greater than min."})
    return attrs["min"], attrs["max"]


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF's BooleanField also takes "yes", 1, "on" …)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("Must be true or false.")
        return data


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
#: The kinds a respondent answers directly: the only ones skip logic may hide.
DIRECT_KINDS = (Question.Kind.CATEGORY, Question.Kind.NUMBER)


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
        options = _options(kind, attrs)
        design = _design(kind, attrs, options)
        lo, hi = _bounds(kind, attrs)
        show_if = attrs.get("show_if")
        if show_if is not None and kind not in DIRECT_KINDS:  # yes_no, choice, multi
            raise serializers.ValidationError({"show_if": SHOW_IF_RANDOMIZED})
        ordered = attrs.get("ordered", False)
        if ordered and kind != Question.Kind.CHOICE:
            message = "Only a choice question can be ordered (its options scored 1..k)."
            raise serializers.ValidationError({"ordered": message})
        integer = attrs.get("integer", False)
        if integer and kind != Question.Kind.NUMBER:
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


def _unique_keys(questions: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
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
    if target.kind != Question.Kind.CATEGORY:
        if target.kind in Question.RANDOMIZED_KINDS:  # yes_no, choice, multi
            return SHOW_IF_TARGET_RANDOMIZED
        return f"{show_if.key!r} is a {target.kind} question: show_if must follow a category one."
    unknown = [v for v in show_if.values if v not in target.options]
    if unknown:
        return f"Not options of {show_if.key!r}: {', '.join(map(repr, unknown))}."
    if len(set(show_if.values)) != len(show_if.values):
        return "Options must be unique."
    return None


def _show_if_references(questions: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
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


class SurveyBudgetInSerializer(serializers.Serializer):
    epsilon = StrictFloatField(
        required=False,
        exclusive_min=0.0,
        error_messages={"exclusive_min": "A finite number > 0 is required."},
        help_text="ε_total > 0 (default: the server's DENIABLE_DEFAULT_BUDGET_EPSILON, 1), at most "
        "DENIABLE_MAX_BUDGET_EPSILON (10).",
    )
    delta = StrictFloatField(
        required=False,
        min_value=calibrate.MIN_DELTA,
        max_value=calibrate.MAX_DELTA,
        error_messages={
            "min_value": f"Must lie between {calibrate.MIN_DELTA:g} and {calibrate.MAX_DELTA:g} "
            "(δ is the chance the guarantee fails; keep it well below 1/respondents).",
            "max_value": f"Must lie between {calibrate.MIN_DELTA:g} and {calibrate.MAX_DELTA:g} "
            "(δ is the chance the guarantee fails; keep it well below 1/respondents).",
        },
        help_text="δ_total (default 1e-6); keep it below 1/respondents.",
    )

    def validate_epsilon(self, value: float) -> float:
        error = budget_epsilon_error(value)
        if error:
            raise serializers.ValidationError(error)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, float]:
        return budget_values(attrs)


def budget_values(attrs: Mapping[str, Any]) -> dict[str, float]:
    """The survey's budget columns from a validated ``budget`` object, defaults where absent."""
    return {
        "budget_epsilon": attrs.get("epsilon", settings.DENIABLE_DEFAULT_BUDGET_EPSILON),
        "budget_delta": attrs.get("delta", settings.DENIABLE_DEFAULT_BUDGET_DELTA),
    }


QUESTIONS_MESSAGES: dict[str, StrOrPromise] = {
    "not_a_list": "Give a list of questions.",
    "max_length": f"At most {MAX_QUESTIONS} questions.",
    "invalid": "Each question must be an object.",
}


def _count(help_text: str, **kwargs: Any) -> StrictIntegerField:
    return StrictIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_COUNT,
        error_messages={
            "invalid": "A positive integer is required.",
            "min_value": "A positive integer is required.",
            "max_value": "Too large.",
        },
        help_text=help_text,
        **kwargs,
    )


class _SurveyFieldsSerializer(serializers.Serializer):
    """A survey's fields and the rules they share. Its two forms are siblings, not parent and
    child, because each validates into its own value (SurveyChanges, SurveySpec)."""

    title = StrictCharField(max_length=TITLE_MAX, required=False)
    slug = serializers.RegexField(
        SLUG_PATTERN,
        required=False,
        max_length=SLUG_MAX,
        error_messages={"invalid": SLUG_MESSAGE, "max_length": SLUG_MESSAGE, "blank": SLUG_MESSAGE},
        help_text="The survey's link, /s/<slug>/ (default: random). Unique; editable while draft.",
    )
    description = StrictCharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        trim_whitespace=False,
        max_length=translations.TEXT_MAX,
    )
    access = serializers.ChoiceField(choices=Survey.Access.choices, required=False)
    budget = SurveyBudgetInSerializer(required=False, allow_null=True)
    closes_at = UTCDateTimeField(required=False, allow_null=True)
    response_cap = _count("Stop accepting answers after this many (null: no cap).", allow_null=True)
    planned_n = _count("The planned number of respondents (for precision previews).")
    questions = QuestionInSerializer(
        many=True,
        required=False,
        # drf-stubs lacks max_length here; DRF hands it to the ListSerializer that many=True makes.
        max_length=MAX_QUESTIONS,  # type: ignore[call-arg]
        error_messages=QUESTIONS_MESSAGES,
        help_text="Replaces all.",
    )

    languages = serializers.ListField(
        child=StrictCharField(max_length=16),
        required=False,
        max_length=len(settings.LANGUAGES),
        help_text="Respondent-facing language codes (settings.LANGUAGES), the default first "
        "(docs/translations.md).",
    )
    translations = serializers.JSONField(
        required=False,
        help_text='{lang: {"title","description","questions":{key:{"text","options":{option: '
        'label},"innocuous_text"}}}}: complete for every language after the first.',
    )

    def validate_questions(self, value: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
        return _show_if_references(_unique_keys(value))

    def validate_slug(self, value: str) -> str:
        if value in RESERVED_SLUGS:
            raise serializers.ValidationError(f"{value!r} is reserved; choose another slug.")
        return value

    def validate_languages(self, value: list[str]) -> list[str]:
        errors = translations.languages_errors(value)
        if errors:
            raise serializers.ValidationError(errors)
        return value

    def validate_translations(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise serializers.ValidationError(
                "Give an object: {language: {title, description, questions}}."
            )
        return dict(value)

    def _values(self, attrs: Mapping[str, Any]) -> dict[str, Any]:
        values = {k: v for k, v in attrs.items() if k not in ("budget", "questions")}
        if "description" in values and values["description"] is None:
            values["description"] = ""
        if "budget" in attrs:
            values.update(attrs["budget"] or budget_values({}))
        return values


class SurveyPatchSerializer(_SurveyFieldsSerializer):
    """PATCH: every field optional; ``questions``, when given, replaces them all."""

    def validate(self, attrs: dict[str, Any]) -> SurveyChanges:
        questions = attrs.get("questions")
        return SurveyChanges(
            values=self._values(attrs),
            questions=tuple(questions) if questions is not None else None,
        )


class SurveyInSerializer(_SurveyFieldsSerializer):
    """POST: a whole survey; absent fields take their defaults."""

    title = StrictCharField(max_length=TITLE_MAX)
    questions = QuestionInSerializer(
        many=True,
        required=False,
        # drf-stubs lacks max_length here; DRF hands it to the ListSerializer that many=True makes.
        max_length=MAX_QUESTIONS,  # type: ignore[call-arg]
        error_messages=QUESTIONS_MESSAGES,
    )

    def validate(self, attrs: dict[str, Any]) -> SurveySpec:
        values = self._values({"budget": None, **attrs})
        values["questions"] = tuple(attrs.get("questions") or ())
        errors = translations.translation_errors(
            languages=values.get("languages", []),
            translations=values.get("translations", {}),
            description=values.get("description") or "",
            questions=values["questions"],
        )
        if errors:
            raise serializers.ValidationError(errors)
        return SurveySpec(**values)


def survey_spec(data: Any) -> SurveySpec:
    """A ``POST /api/v1/surveys/`` body, validated (raises ``InvalidInput``)."""
    return validate_input(SurveyInSerializer, data, SurveySpec)


def survey_changes(data: Any) -> SurveyChanges:
    """A ``PATCH /api/v1/surveys/<slug>/`` body, validated (raises ``InvalidInput``)."""
    return validate_input(SurveyPatchSerializer, data, SurveyChanges)
