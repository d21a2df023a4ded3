"""Input serializers: THE validator of every survey write (API, pages, commands, tests).

Each serializer's ``validate`` returns a frozen spec (:mod:`surveys.definitions.specs`) that the
services
take as typed keyword arguments. The rules are stated as DRF field arguments wherever they can be
(ranges, lengths, patterns, enums), so the OpenAPI document states them too; the rules that
depend on another field are in ``validate`` (a question's by its kind, :mod:`.questions`).
Designs are validated by :mod:`dpcore.local` (their one copy of the rules); one-sided designs
(ε = ∞) and designs the respondent's browser cannot run exactly (:mod:`dpcore.local.browser`)
are refused.

Errors are named like ``questions[0].design.p_truth`` (:func:`deniable.api_errors.as_field_errors`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from rest_framework import serializers

from deniable.input_fields import (
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    UTCDateTimeField,
)
from deniable.inputs import validate_input
from dpcore.central import calibration as calibrate
from surveys.definitions import translations
from surveys.definitions.freeze import budget_epsilon_error
from surveys.definitions.specs import (
    MAX_QUESTIONS,
    RESERVED_SLUGS,
    SLUG_MAX,
    SLUG_PATTERN,
    TITLE_MAX,
    QuestionSpec,
    SurveyChanges,
    SurveySpec,
)
from surveys.inputs.design_specs import design_spec  # noqa: F401 — surveys.inputs exports it
from surveys.inputs.questions import (
    QuestionInSerializer,
    show_if_references,
    unique_keys,
)
from surveys.models import Survey

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a dev-only package: for the annotation only

SLUG_MESSAGE = (
    f"Use 3 to {SLUG_MAX} lowercase letters, digits or hyphens, starting and ending with a "
    "letter or digit."
)
MAX_COUNT = 2_000_000_000  # response_cap, planned_n


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
        return show_if_references(unique_keys(value))

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
