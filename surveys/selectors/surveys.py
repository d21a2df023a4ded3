"""Surveys as respondents and researchers see them, and the teams permission resolver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from django.conf import settings
from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from deniable.errors import Forbidden, NotFound
from deniable.users import RequestUser, signed_in
from surveys.models import UNSEALED, Collaborator, Question, Submission, Survey, Tally
from surveys.selectors.sql import RespondentsSlot, respondents_subquery
from surveys.selectors.summaries import budget_remaining


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


# --- teams: one permission resolver (docs/teams.md#roles) ----------------------------------------

# What a request needs, and the roles that have it: owner > editor > viewer.
Need = Literal["view", "edit", "own"]
OWNER = "owner"
ROLE_RANK = {Collaborator.Role.VIEWER.value: 1, Collaborator.Role.EDITOR.value: 2, OWNER: 3}
NEED_RANK: dict[str, int] = {"view": 1, "edit": 2, "own": 3}
NEED_WORDS = {
    "view": "a member of this survey's team",
    "edit": "an editor or the owner",
    "own": "the survey's owner",
}


def survey_role(*, user: RequestUser, survey: Survey) -> str | None:
    """``"owner"``, ``"editor"``, ``"viewer"`` or None (not on the survey's team)."""
    member = signed_in(user)
    if member is None:
        return None
    if survey.owner_id == member.pk:
        return OWNER
    role = (
        Collaborator.objects.filter(survey=survey, user=member)
        .values_list("role", flat=True)
        .first()
    )
    return role


def _allow(role: str | None, need: Need) -> str:
    if role is None:
        raise NotFound("No such survey.")
    if ROLE_RANK[role] < NEED_RANK[need]:
        raise Forbidden(
            f"Your role on this survey is {role}: only {NEED_WORDS[need]} can do this.",
            role=role,
            needs=need,
        )
    return role


def survey_require(*, user: RequestUser, survey: Survey, need: Need) -> str:
    """The user's role on ``survey`` if it allows ``need``. Outside the team: NotFound (the
    survey's existence is not leaked); on the team without the role: Forbidden (403)."""
    return _allow(survey_role(user=user, survey=survey), need)


def survey_get_for_user(*, user: RequestUser, slug: str, need: Need) -> Survey:
    """THE lookup of a researcher's survey: the survey if ``user`` may do ``need`` on it.

    Every researcher endpoint and page goes through here (the releases app too), and the
    permission walk (tests/security/test_object_permissions.py) checks each route against its
    need for a stranger, a viewer, an editor and the owner. The survey carries ``role``.
    """
    member = signed_in(user)
    if member is None:
        raise NotFound("No such survey.")
    survey = (
        _with_questions(Survey.objects.filter(slug=slug))
        .filter(Q(owner=member) | Q(collaborators__user=member))
        .annotate(
            shared_role=Subquery(
                Collaborator.objects.filter(survey=OuterRef("pk"), user=member).values("role")[:1]
            )
        )
        .first()
    )
    if survey is None:
        raise NotFound("No such survey.")
    # Not a column: the resolved role, read by the pages (which buttons show) and the API.
    survey.role = OWNER if survey.owner_id == member.pk else survey.shared_role  # type: ignore[attr-defined]
    _allow(survey.role, need)  # type: ignore[attr-defined]
    return survey


def survey_list_for_user(*, user: RequestUser) -> QuerySet[Survey]:
    """The user's surveys and those shared with them, newest first, each annotated with
    ``respondents`` and ``shared_role`` (None on the user's own)."""
    member = signed_in(user)
    if member is None:
        return Survey.objects.none()
    shared = Collaborator.objects.filter(survey=OuterRef("pk"), user=member).values("role")[:1]
    return (
        _with_questions(
            Survey.objects.filter(
                Q(owner=member)
                | Q(pk__in=Collaborator.objects.filter(user=member).values("survey_id"))
            )
        )
        .select_related("owner")
        .annotate(
            respondents=Coalesce(respondents_subquery(), Value(0)),
            shared_role=Subquery(shared),
        )
    )


def survey_list_sorted(*, user: RequestUser, ordering: str, archived: bool) -> list[Survey]:
    """The survey list of the page and the API: archived surveys only, or all the others; each
    survey carries ``respondents``, ``budget_left`` (ε remaining, from the releases app through
    ``surveys.selectors.summaries``) and ``role``; sorted by ``ordering``
    (``surveys.inputs.ORDERINGS``,
    "-" for descending), ties newest first. Sorted here rather than in SQL because the budget
    left is computed from the ledger, not stored; a researcher's list is small."""
    member = signed_in(user)
    qs = survey_list_for_user(user=user)
    qs = (
        qs.filter(status=Survey.Status.ARCHIVED)
        if archived
        else qs.exclude(status=Survey.Status.ARCHIVED)
    )
    surveys = list(qs.order_by("-created_at", "-id"))
    remaining = budget_remaining(surveys)
    for survey in surveys:
        survey.budget_left = remaining[survey.pk]  # type: ignore[attr-defined]
        shared = getattr(survey, "shared_role", None)
        survey.role = OWNER if member and survey.owner_id == member.pk else shared  # type: ignore[attr-defined]
    name = ordering.lstrip("-")
    keys: dict[str, Callable[[Survey], Any]] = {
        "title": lambda s: s.title.casefold(),
        "created": lambda s: s.created_at,
        "status": lambda s: STATUS_ORDER.get(s.status, 9),
        "responses": lambda s: getattr(s, "respondents", 0),
        "budget_left": lambda s: getattr(s, "budget_left", 0.0),
    }
    # A stable sort on the newest-first list: equal keys stay newest first.
    return sorted(surveys, key=keys[name], reverse=ordering.startswith("-"))


# Status sorts by life cycle, not alphabetically.
STATUS_ORDER = {
    Survey.Status.DRAFT.value: 0,
    Survey.Status.OPEN.value: 1,
    Survey.Status.CLOSED.value: 2,
    Survey.Status.ARCHIVED.value: 3,
}


def survey_collaborators(*, survey: Survey) -> QuerySet[Collaborator]:
    """The survey's team besides its owner, by username."""
    return (
        Collaborator.objects.filter(survey=survey).select_related("user").order_by("user__username")
    )


def question_by_key(*, survey: Survey, key: str) -> Question | None:
    """The survey's question ``key`` names, or None. Matched in Python among the survey's (at
    most 100) questions, not in SQL: a key from a query string may hold a NUL, which PostgreSQL
    refuses in any text comparison (a 500 on the analysis endpoints)."""
    return next((q for q in survey.questions.all() if q.key == key), None)


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
    return Submission.objects.filter(UNSEALED, survey=survey).count()
