"""The input serializer of a submission (the JSON API and the no-JS form alike).

Only *reported* answers exist here — there is no field for a true answer.

A submission's answers are checked against the survey's questions (``context["questions"]``):
yes_no a boolean, choice/category one of the options, number a finite number within the bounds,
multi ``{option: bool}`` with exactly the question's options;
randomized questions must be answered, unknown keys are refused. Errors are ``answers.<key>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rest_framework import serializers

from deniable.input_fields import StrictCharField, UUID4Field, is_finite_number
from deniable.inputs import ThreadFieldsMixin, validate_input
from surveys.models import Question, Submission
from surveys.specs import MAX_ABS_NUMBER, MAX_TOKEN_LENGTH, Answer, SubmissionSpec
from surveys.tally_layout import is_cheater_question

TOKEN_MESSAGE = "Must be the invitation token string."  # noqa: S105 — a message
RANDOMIZER_MESSAGE = "One of: browser, physical."


CHEATER_MESSAGE = 'Must be {"group": 1 or 2, "report": a boolean} (the group drawn, the report).'


def _cheater(value: Any) -> Answer:
    """Cheating detection: the group the device drew (1 or 2) and the reported answer."""
    if not isinstance(value, Mapping) or set(value) != {"group", "report"}:
        raise serializers.ValidationError(CHEATER_MESSAGE)
    group, report = value["group"], value["report"]
    if isinstance(group, bool) or group not in (1, 2) or not isinstance(report, bool):
        raise serializers.ValidationError(CHEATER_MESSAGE)
    return {"group": int(group), "report": report}


def _yes_no(question: Question, value: Any) -> Answer:
    if is_cheater_question(question):
        return _cheater(value)
    if not isinstance(value, bool):
        raise serializers.ValidationError("Must be a boolean (the reported answer).")
    return value


def _multi(question: Question, value: Any) -> Answer:
    """Multi-select: ``{option: reported bool}`` with every option present and nothing else
    (each option's report was randomized on its own; a missing one is not "no")."""
    options = list(question.options or [])
    if not isinstance(value, Mapping):
        raise serializers.ValidationError(
            "Must be an object with every option as a key and the reported boolean as its value."
        )
    problems: list[str] = []
    missing = [o for o in options if o not in value]
    extra = [str(o) for o in value if o not in options]
    if missing:
        problems.append(f"Missing option(s): {', '.join(repr(o) for o in missing)}.")
    if extra:
        problems.append(f"Unknown option(s): {', '.join(repr(o) for o in extra[:5])}.")
    not_bool = [o for o in options if o in value and not isinstance(value[o], bool)]
    if not_bool:
        problems.append(
            f"Must be a boolean (the reported answer): {', '.join(repr(o) for o in not_bool)}."
        )
    if problems:
        raise serializers.ValidationError(problems)
    return {o: bool(value[o]) for o in options}


def _option(question: Question, value: Any) -> Answer:
    if not isinstance(value, str) or value not in question.options:
        raise serializers.ValidationError("Must be one of the question's options.")
    return value


def _number(question: Question, value: Any) -> Answer:
    if not is_finite_number(value):
        raise serializers.ValidationError("Must be a finite number.")
    number = float(value)
    if abs(number) > MAX_ABS_NUMBER:  # a question stored before the bounds were capped
        raise serializers.ValidationError(
            f"Must be between {-MAX_ABS_NUMBER:g} and {MAX_ABS_NUMBER:g}."
        )
    lo, hi = question.min_value, question.max_value
    if lo is None or hi is None or not lo <= number <= hi:
        raise serializers.ValidationError(f"Must be between {lo:g} and {hi:g}.")
    return number


ANSWER_CHECKS: dict[str, Callable[[Question, Any], Answer]] = {
    Question.Kind.YES_NO: _yes_no,
    Question.Kind.CHOICE: _option,
    Question.Kind.CATEGORY: _option,
    Question.Kind.NUMBER: _number,
    Question.Kind.MULTI: _multi,
}


def answers_clean(questions: Sequence[Question], answers: Mapping[str, Any]) -> dict[str, Answer]:
    """``{key: reported answer}`` for the answered questions; raises ``ValidationError`` keyed
    ``answers.<key>`` for every bad, missing (randomized) or unknown answer."""
    errors: dict[str, list[str]] = {}
    known = {q.key for q in questions}
    for key in answers:
        if key not in known:
            errors[f"answers.{key}"] = ["Unknown question."]
    cleaned: dict[str, Answer] = {}
    for q in questions:
        value = answers.get(q.key)
        if value is None:
            if q.is_randomized:
                errors[f"answers.{q.key}"] = ["This randomized question must be answered."]
            continue
        try:
            cleaned[q.key] = ANSWER_CHECKS[q.kind](q, value)
        except serializers.ValidationError as exc:
            errors[f"answers.{q.key}"] = [str(m) for m in exc.detail]
    if errors:
        raise serializers.ValidationError(errors)
    return cleaned


class SubmissionRequestSerializer(ThreadFieldsMixin, serializers.Serializer):
    submission_id = UUID4Field(help_text="A random uuid4 made by the client (idempotency key).")
    token = StrictCharField(
        required=False,
        allow_null=True,
        max_length=MAX_TOKEN_LENGTH,
        trim_whitespace=False,
        error_messages={"invalid": TOKEN_MESSAGE, "blank": TOKEN_MESSAGE},
        help_text="Invite-only surveys: the invitation token.",
    )
    randomizer = serializers.ChoiceField(
        choices=Submission.Randomizer.choices,
        error_messages={"invalid_choice": RANDOMIZER_MESSAGE, "null": RANDOMIZER_MESSAGE},
    )
    answers = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        error_messages={"not_a_dict": "Give an object mapping question keys to answers."},
        help_text=(
            'question key → REPORTED answer: yes_no a boolean ({"group": 1|2, "report": '
            "bool} with the cheater_detection design), choice/category an option string, "
            "multi an object {option: reported boolean} with every option, "
            "number a number within the question's bounds. Randomized questions are required."
        ),
    )

    def validate(self, attrs: dict[str, Any]) -> SubmissionSpec:
        answers = answers_clean(self.context["questions"], attrs["answers"])
        return SubmissionSpec(
            submission_id=attrs["submission_id"],
            randomizer=attrs["randomizer"],
            answers=answers,
            token=attrs.get("token"),
        )


def submission_spec(*, questions: Sequence[Question], data: Any) -> SubmissionSpec:
    """A submission body checked against the survey's questions (raises ``InvalidInput``)."""
    return validate_input(SubmissionRequestSerializer, data, SubmissionSpec, questions=questions)
