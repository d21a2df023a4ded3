"""The input serializer of a submission (the JSON API and the no-JS form alike).

Only *reported* answers exist here — there is no field for a true answer.

A submission's answers are checked against the survey's questions (``context["questions"]``):
yes_no a boolean, choice/category one of the options, number a finite number within the bounds,
multi ``{option: bool}`` with exactly the question's options; required questions must be
answered (when shown), a question hidden by its ``show_if`` must not be, unknown keys are
refused. Errors are ``answers.<key>``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from deniable.input_fields import StrictCharField, UUID4Field
from deniable.inputs import ThreadFieldsMixin, validate_input
from deniable.json_input import string_problem
from surveys.definitions.specs import MAX_TOKEN_LENGTH, Answer, SubmissionSpec
from surveys.kinds import kind_of
from surveys.models import Question, Submission, Survey

TOKEN_MESSAGE = "Must be the invitation token string."  # noqa: S105 — a message
RANDOMIZER_MESSAGE = "One of: browser, physical."


def question_shown(question: Question, answers: Mapping[str, Any]) -> bool:
    """Skip logic (docs/api.md#skip-logic): a question with ``show_if`` is shown only when the
    category question it names was answered with one of the listed options. Only direct
    (category) answers ever decide this, never a randomized report."""
    rule = question.show_if
    if not rule:
        return True
    value = answers.get(rule["key"])
    return isinstance(value, str) and value in rule["in"]


def _hidden_message(question: Question) -> str:
    rule = question.show_if or {}
    shown_for = _(" or ").join(f"“{o}”" for o in rule.get("in", []))
    return _(
        "Leave this question out: it is asked only of those who answered %(options)s to %(key)r."
    ) % {"options": shown_for, "key": rule.get("key")}


def _missing_message(question: Question) -> str:
    if question.is_randomized:
        return _("This randomized question must be answered.")
    return _("This question must be answered.")


def _presence_refusal(
    q: Question, value: Any, cleaned: Mapping[str, Any], errors: Mapping[str, Any]
) -> str | None:
    """Why ``value`` may not be present or absent ("" when the question is not to be judged:
    its skip logic reads an earlier answer that was itself refused); None when it may."""
    if q.show_if and f"answers.{q.show_if['key']}" in errors:
        return ""
    if not question_shown(q, cleaned):
        return _hidden_message(q) if value is not None else ""
    if value is None and q.required:
        return _missing_message(q)
    return None


class SubmissionSchema:
    """A survey's submission checks, prepared once from its questions (issue 24): each question's
    key, rule and its kind's ``clean_answer`` looked up once instead of per request. An open
    survey's questions are frozen, so the schema of the per-process cached survey
    (:func:`schema_of`) lives as long as that cache entry and is rebuilt from the database with
    it. The checks themselves stay the kinds' (``surveys/kinds/*.py``)."""

    __slots__ = ("_checks", "_known", "questions")

    def __init__(self, questions: Sequence[Question]) -> None:
        self.questions = tuple(questions)
        self._known = frozenset(q.key for q in self.questions)
        self._checks = tuple((q, q.key, kind_of(q).clean_answer) for q in self.questions)

    def answers_clean(self, answers: Mapping[str, Any]) -> dict[str, Answer]:
        """:func:`answers_clean` for this survey's questions."""
        errors: dict[str, list[str]] = {}
        for key in answers:
            if key not in self._known:
                errors[f"answers.{key}"] = [_("Unknown question.")]
        cleaned: dict[str, Answer] = {}
        for q, key, clean in self._checks:
            value = answers.get(key)
            refusal = _presence_refusal(q, value, cleaned, errors)
            if refusal:
                errors[f"answers.{key}"] = [refusal]
            if refusal is not None or value is None:
                continue
            try:
                cleaned[key] = clean(q, value)
            except serializers.ValidationError as exc:
                errors[f"answers.{key}"] = [str(m) for m in exc.detail]
        if errors:
            raise serializers.ValidationError(errors)
        return cleaned

    def spec(self, data: Any) -> SubmissionSpec:
        """The body checked (raises ``InvalidInput``). A well-formed body is accepted by the
        checks below, which take only what :class:`SubmissionRequestSerializer` takes and give
        what it gives; anything else — every refusal included — goes through the serializer,
        so the error bodies stay its words (DRF's serializer machinery was ≈ 60 % of
        validating a submission)."""
        return self._accepted(data) or validate_input(
            SubmissionRequestSerializer, data, SubmissionSpec, questions=self.questions, schema=self
        )

    def _accepted(self, data: Any) -> SubmissionSpec | None:
        if type(data) is not dict:
            return None
        sid, randomizer = data.get("submission_id"), data.get("randomizer")
        answers, token = data.get("answers"), data.get("token")
        if type(sid) is not str or type(answers) is not dict:
            return None
        if type(randomizer) is not str or randomizer not in _RANDOMIZERS:
            return None
        if token is not None and not (
            type(token) is str and 0 < len(token) <= MAX_TOKEN_LENGTH and not string_problem(token)
        ):
            return None
        try:
            submission_id = uuid.UUID(sid)
        except ValueError:
            return None
        if submission_id.version != 4 or submission_id.variant != uuid.RFC_4122:
            return None
        try:
            cleaned = self.answers_clean(answers)
        except serializers.ValidationError:
            return None
        return SubmissionSpec(
            submission_id=submission_id, randomizer=randomizer, answers=cleaned, token=token
        )


# Exactly the strings the serializer's ChoiceField takes (``str(value)`` of a non-string is
# never one of them, so non-strings are refused by the fast checks and worded by the serializer).
_RANDOMIZERS = frozenset(Submission.Randomizer.values)
_SCHEMA_ATTRIBUTE = "_submission_schema"


def schema_of(survey: Survey) -> SubmissionSchema:
    """The survey's :class:`SubmissionSchema`, kept on the survey instance: the per-process
    cached survey (``surveys.collection.public_survey_cache``) builds it once per cache entry."""
    schema: SubmissionSchema | None = survey.__dict__.get(_SCHEMA_ATTRIBUTE)
    if schema is None:
        schema = SubmissionSchema(list(survey.questions.all()))
        survey.__dict__[_SCHEMA_ATTRIBUTE] = schema  # two threads may both build it: harmless
    return schema


def answers_clean(questions: Sequence[Question], answers: Mapping[str, Any]) -> dict[str, Answer]:
    """``{key: reported answer}`` for the answered questions; raises ``ValidationError`` keyed
    ``answers.<key>`` for every bad, missing (required and shown) or unknown answer, and for an
    answer to a question its skip logic hides (docs/api.md#skip-logic).

    Questions are checked in order, so a ``show_if`` reads the already-cleaned answer of the
    earlier category question it names; when that answer was refused, the hidden-or-shown
    question is not judged (its error would only echo the other one)."""
    return SubmissionSchema(questions).answers_clean(answers)


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
            "number a number within the question's bounds. Required questions must be answered "
            "unless their show_if hides them; a hidden question's answer must be absent."
        ),
    )

    def validate(self, attrs: dict[str, Any]) -> SubmissionSpec:
        schema = self.context.get("schema") or SubmissionSchema(self.context["questions"])
        answers = schema.answers_clean(attrs["answers"])
        return SubmissionSpec(
            submission_id=attrs["submission_id"],
            randomizer=attrs["randomizer"],
            answers=answers,
            token=attrs.get("token"),
        )


def submission_spec(*, questions: Sequence[Question], data: Any) -> SubmissionSpec:
    """A submission body checked against the survey's questions (raises ``InvalidInput``)."""
    return SubmissionSchema(questions).spec(data)
