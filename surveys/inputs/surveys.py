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
from surveys import designs
from surveys.inputs.design_specs import (
    DesignField,
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
    TITLE_MAX,
    QuestionSpec,
    SurveyChanges,
    SurveySpec,
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a dev-only package: for the annotation only

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


class QuestionInSerializer(serializers.Serializer):
    class Meta:
        list_serializer_class = BoundedListSerializer

    key = serializers.RegexField(
        KEY_PATTERN,
        max_length=64,
        error_messages={"invalid": KEY_MESSAGE, "max_length": KEY_MESSAGE, "blank": KEY_MESSAGE},
        help_text="Unique within the survey: a letter or digit, then letters, digits, - or _.",
    )
    text = StrictCharField(help_text="The question as respondents read it.")
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    design = DesignField(
        required=False,
        allow_null=True,
        help_text=(
            'yes_no: {"name":"forced_response","p_truth","p_yes","p_no"} (default ½, ¼, ¼), '
            '{"name":"warner","p"}, {"name":"unrelated_question","p","innocuous_prevalence"}, '
            '{"name":"two_probability","p_yes_if_trait","p_yes_if_not"} or '
            '{"name":"crosswise","innocuous_prevalence","innocuous_text"} or '
            '{"name":"cheater_detection","groups":[{"p_yes","p_no"},{"p_yes","p_no"}]}; '
            'choice: {"name":"k_rr","epsilon"} (default ε = ln 3); multi: one yes_no design '
            "(forced_response, warner, unrelated_question or two_probability) applied to each "
            "option independently, ε summed over the options. Designs with ε = ∞ or above "
            "the local ε cap, or that the browser cannot run exactly, are refused."
        ),
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

    def validate_options(self, value: list[str] | None) -> list[str]:
        if value and len(set(value)) != len(value):
            raise serializers.ValidationError("Options must be unique.")
        return value or []

    def validate(self, attrs: dict[str, Any]) -> QuestionSpec:
        kind = attrs["kind"]
        options = _options(kind, attrs)
        design = _design(kind, attrs, options)
        lo, hi = _bounds(kind, attrs)
        return QuestionSpec(
            key=attrs["key"],
            text=attrs["text"],
            kind=kind,
            design=design,
            options=options,
            min_value=lo,
            max_value=hi,
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


# --- surveys ------------------------------------------------------------------------------------


class SurveyBudgetInSerializer(serializers.Serializer):
    epsilon = StrictFloatField(
        required=False,
        exclusive_min=0.0,
        error_messages={"exclusive_min": "A finite number > 0 is required."},
        help_text="ε_total > 0 (default: the server's DENIABLE_DEFAULT_BUDGET_EPSILON, 1).",
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
    description = StrictCharField(
        required=False, allow_blank=True, allow_null=True, trim_whitespace=False
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

    def validate_questions(self, value: Sequence[QuestionSpec]) -> Sequence[QuestionSpec]:
        return _unique_keys(value)

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
        return SurveySpec(**values)


def survey_spec(data: Any) -> SurveySpec:
    """A ``POST /api/v1/surveys/`` body, validated (raises ``InvalidInput``)."""
    return validate_input(SurveyInSerializer, data, SurveySpec)


def survey_changes(data: Any) -> SurveyChanges:
    """A ``PATCH /api/v1/surveys/<slug>/`` body, validated (raises ``InvalidInput``)."""
    return validate_input(SurveyPatchSerializer, data, SurveyChanges)
