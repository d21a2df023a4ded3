"""Surveys as respondents and owners see them."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Prefetch, QuerySet, Sum, Value
from django.db.models.functions import Coalesce

from deniable.errors import NotFound
from deniable.users import RequestUser, signed_in
from surveys.models import Question, Submission, Survey, Tally
from surveys.selectors.sql import RespondentsSlot, respondents_subquery


def _with_questions(qs: QuerySet[Survey]) -> QuerySet[Survey]:
    return qs.prefetch_related(
        Prefetch("questions", queryset=Question.objects.order_by("position", "id"))
    )


def survey_get_public(*, slug: str) -> Survey:
    """A survey respondents may see: NotFound if unknown or still a draft."""
    survey = (
        _with_questions(Survey.objects.exclude(status=Survey.Status.DRAFT))
        .filter(slug=slug)
        .first()
    )
    if survey is None:
        raise NotFound("No such survey.")
    return survey


def survey_get_for_owner(*, user: RequestUser, slug: str) -> Survey:
    """The user's own survey. Someone else's is a 404 (never 403), so existence is not leaked."""
    owner = signed_in(user)
    if owner is None:
        raise NotFound("No such survey.")
    survey = _with_questions(Survey.objects.filter(owner=owner, slug=slug)).first()
    if survey is None:
        raise NotFound("No such survey.")
    return survey


def survey_list_for_owner(*, user: RequestUser) -> QuerySet[Survey]:
    """The user's surveys, newest first, each annotated with ``respondents``."""
    owner = signed_in(user)
    if owner is None:
        return Survey.objects.none()
    return _with_questions(Survey.objects.filter(owner=owner)).annotate(
        respondents=Coalesce(respondents_subquery(), Value(0))
    )


def survey_respondent_count(*, survey: Survey) -> int:
    total = Tally.objects.filter(survey=survey, group_key="").aggregate(
        n=Sum(RespondentsSlot("sums"))
    )["n"]
    return int(total or 0)


def estimate_batch() -> int:
    """k: submissions per published batch (``DENIABLE_ESTIMATE_BATCH``, at least 1).

    Unsealed submissions are published k at a time (``surveys.services.batches``), so counts and
    estimates move in steps of k and no published count pins down one arrival.
    """
    return max(1, int(getattr(settings, "DENIABLE_ESTIMATE_BATCH", 10)))


def unsealed_count(*, survey: Survey) -> int:
    """Stored submissions not yet published into the tallies (fewer than k after every sweep)."""
    return Submission.objects.filter(survey=survey, sealed=False).count()
