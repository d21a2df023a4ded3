"""Surveys: create and update a draft, open and close it.

The arguments are validated specs (:mod:`surveys.definitions.specs`, made by :mod:`surveys.inputs`,
where
every design is checked by ``dpcore.local`` and one-sided designs are refused). Once open, a
survey's designs are frozen: reports already collected were randomized under them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from deniable.errors import Conflict, ErrorCode, InvalidInput
from surveys import audit_details as audited
from surveys.definitions import translations as i18n
from surveys.definitions.specs import (
    KEY_RE,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MIN_OPTIONS,
    SLUG_MAX,
    TITLE_MAX,
    Poststratification,
    QuestionSpec,
    SurveyChanges,
)
from surveys.models import Question, Survey

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
    "survey_population_shares_set",
    "survey_update",
]


def _plain(value: Any) -> Any:
    """A JSON column's value from a frozen spec's (read-only mappings become dicts)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


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
                integer=q.integer,
            )
            for position, q in enumerate(questions)
        ]
    )


@audited.records("survey.create")
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
    languages: Sequence[str] = (),
    translations: Mapping[str, Any] | None = None,
    slug: str | None = None,
) -> Survey:
    """Create a draft survey and its questions in one transaction.

    The arguments are a validated :class:`surveys.definitions.specs.SurveySpec` (``spec.kwargs()``;
    the
    rules are :class:`surveys.inputs.SurveyInSerializer`'s). ``slug`` is the researcher's
    custom one (or a fixture's, such as the demo survey); an invalid or taken one is refused.
    """
    if slug is not None and (not KEY_RE.match(slug) or len(slug) > SLUG_MAX):
        raise InvalidInput.single("slug", "Invalid slug.")
    if slug is not None:
        _slug_free(slug)
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
        languages=list(languages),
        translations=_plain(translations or {}),
    )
    if slug is not None:
        survey.slug = slug
    _save_with_slug(survey)
    _questions_replace(survey=survey, questions=questions)
    return survey


def _slug_free(slug: str, *, survey: Survey | None = None) -> None:
    taken = Survey.objects.filter(slug=slug)
    if survey is not None:
        taken = taken.exclude(pk=survey.pk)
    if taken.exists():
        raise InvalidInput.single("slug", f"The slug {slug!r} is taken; choose another.")


def _save_with_slug(survey: Survey) -> None:
    """Save; a slug taken between the check and the write (a concurrent request) is the same
    400 as one taken before, not a 500."""
    try:
        with transaction.atomic():
            survey.save()
    except IntegrityError:
        raise InvalidInput.single(
            "slug", f"The slug {survey.slug!r} is taken; choose another."
        ) from None


@audited.records("survey.update", detail=audited.survey_changes)
def survey_update(*, survey: Survey, changes: SurveyChanges) -> Survey:
    """Update a *draft* survey with validated changes
    (:class:`surveys.definitions.specs.SurveyChanges`);
    ``changes.questions``, when given, replaces all questions.

    Once open, designs are frozen: reports already collected were randomized under them.
    """
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != Survey.Status.DRAFT:
            if changes.values.get("slug", locked.slug) != locked.slug:
                raise Conflict(
                    "The slug is fixed once the survey is open: respondents' links use it.",
                    code=ErrorCode.SLUG_FIXED,
                )
            raise Conflict(
                "Only draft surveys can be edited: the designs of an open survey are fixed.",
                code=ErrorCode.NOT_DRAFT,
            )
        if "slug" in changes.values:
            _slug_free(changes.values["slug"], survey=locked)
        for name, value in changes.values.items():
            setattr(locked, name, _plain(value) if name == "translations" else value)
        _save_with_slug(locked)
        if changes.questions is not None:
            _questions_replace(survey=locked, questions=changes.questions)
        # The translations must stay complete for the questions and languages as they are now
        # (a PATCH may change either side alone); a refusal rolls the whole update back.
        errors = i18n.translation_errors(
            languages=locked.languages or [],
            translations=locked.translations or {},
            description=locked.description,
            questions=list(locked.questions.all()),
        )
        if errors:
            raise InvalidInput(errors)
    survey.refresh_from_db()  # by pk: a new slug is read back too
    return survey


@audited.records("survey.update", detail=audited.population_shares)
def survey_population_shares_set(*, survey: Survey, weighting: Poststratification | None) -> Survey:
    """Store (or, with None, clear) the population shares the dashboard post-stratifies by
    (docs/analysis.md#post-stratification). An analysis setting, not the survey's design, so
    open and closed surveys take it too; ``weighting`` is validated by
    :mod:`surveys.inputs.poststratify` against the survey's questions."""
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        locked.population_shares = weighting.as_json() if weighting is not None else {}
        locked.save(update_fields=["population_shares"])
    survey.population_shares = locked.population_shares
    return survey


def _survey_transition(*, survey: Survey, source: str, target: str, verb: str) -> Survey:
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != source:
            raise Conflict(
                f"Cannot {verb} a survey that is {locked.status} (only a {source} one).",
                code=ErrorCode.INVALID_TRANSITION,
            )
        if target == Survey.Status.OPEN and not locked.questions.exists():
            raise Conflict("Add at least one question before opening.", code=ErrorCode.NO_QUESTIONS)
        locked.status = target
        locked.save(update_fields=["status"])
    survey.status = target
    return survey


@audited.records("survey.open")
def survey_open(*, survey: Survey) -> Survey:
    """draft → open: start accepting submissions."""
    return _survey_transition(
        survey=survey, source=Survey.Status.DRAFT, target=Survey.Status.OPEN, verb="open"
    )


@audited.records("survey.close")
def survey_close(*, survey: Survey) -> Survey:
    """open → closed: stop accepting submissions (estimates and exports remain).

    The unsealed tail (< k submissions) is re-written in key order but not published: the last
    change of the estimates still aggregates ≥ k reports; releases count the tail. A tail of k or
    more (a batch that came due as submissions committed together) is published instead."""
    from surveys.services.batches import submissions_shuffle_tail
    from surveys.services.shuffled_exports import shuffled_export_enqueue

    closed = _survey_transition(
        survey=survey, source=Survey.Status.OPEN, target=Survey.Status.CLOSED, verb="close"
    )
    submissions_shuffle_tail(survey=closed)
    # The shuffled file is made once from the final reports; with a worker, now (issue 27).
    transaction.on_commit(lambda: shuffled_export_enqueue(survey_id=closed.pk))
    return closed
