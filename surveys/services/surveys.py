"""Surveys: create and update a draft, open and close it.

The arguments are validated specs (:mod:`surveys.specs`, made by :mod:`surveys.inputs`, where
every design is checked by ``dpcore.local`` and one-sided designs are refused). Once open, a
survey's designs are frozen: reports already collected were randomized under them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from deniable.errors import Conflict, InvalidInput
from surveys.models import Question, Survey
from surveys.specs import (
    KEY_RE,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MIN_OPTIONS,
    TITLE_MAX,
    QuestionSpec,
    SurveyChanges,
)

__all__ = [  # the limits, re-exported where callers have always found them
    "KEY_RE",
    "MAX_OPTIONS",
    "MAX_OPTION_LENGTH",
    "MAX_QUESTIONS",
    "MIN_OPTIONS",
    "TITLE_MAX",
    "survey_close",
    "survey_create",
    "survey_open",
    "survey_update",
]


def _questions_replace(*, survey: Survey, questions: Sequence[QuestionSpec]) -> None:
    survey.questions.all().delete()
    Question.objects.bulk_create(
        [
            Question(
                survey=survey,
                key=q.key,
                position=position,
                text=q.text,
                kind=q.kind,
                design=dict(q.design),
                options=list(q.options),
                min_value=q.min_value,
                max_value=q.max_value,
                required=q.required,
                show_if=q.show_if.as_json() if q.show_if is not None else None,
                ordered=q.ordered,
            )
            for position, q in enumerate(questions)
        ]
    )


@transaction.atomic
def survey_create(
    *,
    owner: User,
    title: str,
    budget_epsilon: float,
    budget_delta: float,
    description: str = "",
    access: str = Survey.Access.OPEN,
    closes_at: datetime | None = None,
    response_cap: int | None = None,
    planned_n: int = 1000,
    questions: Sequence[QuestionSpec] = (),
    slug: str | None = None,
) -> Survey:
    """Create a draft survey and its questions in one transaction.

    The arguments are a validated :class:`surveys.specs.SurveySpec` (``spec.kwargs()``; the
    rules are :class:`surveys.inputs.SurveyInSerializer`'s). ``slug`` is for fixtures such as
    the demo survey; an invalid or taken one is refused.
    """
    if slug is not None and (not KEY_RE.match(slug) or Survey.objects.filter(slug=slug).exists()):
        raise InvalidInput.single("slug", "Invalid or taken slug.")
    survey = Survey(
        owner=owner,
        title=title,
        description=description,
        access=access,
        closes_at=closes_at,
        response_cap=response_cap,
        planned_n=planned_n,
        budget_epsilon=budget_epsilon,
        budget_delta=budget_delta,
    )
    if slug is not None:
        survey.slug = slug
    survey.save()
    _questions_replace(survey=survey, questions=questions)
    return survey


def survey_update(*, survey: Survey, changes: SurveyChanges) -> Survey:
    """Update a *draft* survey with validated changes (:class:`surveys.specs.SurveyChanges`);
    ``changes.questions``, when given, replaces all questions.

    Once open, designs are frozen: reports already collected were randomized under them.
    """
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != Survey.Status.DRAFT:
            raise Conflict(
                "Only draft surveys can be edited: the designs of an open survey are fixed.",
                code="not_draft",
            )
        for name, value in changes.values.items():
            setattr(locked, name, value)
        locked.save()
        if changes.questions is not None:
            _questions_replace(survey=locked, questions=changes.questions)
    survey.refresh_from_db()
    return survey


def _survey_transition(*, survey: Survey, source: str, target: str, verb: str) -> Survey:
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != source:
            raise Conflict(
                f"Cannot {verb} a survey that is {locked.status} (only a {source} one).",
                code="invalid_transition",
            )
        if target == Survey.Status.OPEN and not locked.questions.exists():
            raise Conflict("Add at least one question before opening.", code="no_questions")
        locked.status = target
        locked.save(update_fields=["status"])
    survey.status = target
    return survey


def survey_open(*, survey: Survey) -> Survey:
    """draft → open: start accepting submissions."""
    return _survey_transition(
        survey=survey, source=Survey.Status.DRAFT, target=Survey.Status.OPEN, verb="open"
    )


def survey_close(*, survey: Survey) -> Survey:
    """open → closed: stop accepting submissions (estimates and exports remain).

    The unsealed tail (< k submissions) is re-written in key order but not published: the last
    change of the estimates still aggregates ≥ k reports; releases count the tail."""
    from surveys.services.batches import submissions_shuffle_tail

    closed = _survey_transition(
        survey=survey, source=Survey.Status.OPEN, target=Survey.Status.CLOSED, verb="close"
    )
    submissions_shuffle_tail(survey=closed)
    return closed
