"""Survey management: duplicate, archive and unarchive, delete, and the team (collaborators).

Who may call what is decided before these run, by the permission resolver
(``surveys.selectors.survey_get_for_user``; the table is docs/teams.md#roles). The rules of the
survey's life cycle are here (docs/researcher-guide.md#managing-surveys):

* a duplicate is a new *draft* owned by whoever duplicated it: the questions, designs, budget and
  settings, never the reports, tallies, invitations, releases or team;
* archiving takes a *closed* survey out of the default list and makes it read-only (no
  invitations, no releases); unarchiving makes it closed again;
* deleting needs the slug typed again and a survey that is not open; it removes the reports,
  tallies, invitations, team, releases and the privacy ledger, irreversibly.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from deniable.errors import Conflict, ErrorCode, InvalidInput
from surveys import audit_details as audited
from surveys.definitions.specs import TITLE_MAX
from surveys.models import Collaborator, Question, Survey

COPY_SUFFIX = " (copy)"

# Survey columns a duplicate never takes over: identity, owner and life cycle. Every other
# column (title aside, which gets the suffix) is copied, so a column added later is copied too.
_SURVEY_NOT_COPIED = {"id", "slug", "owner", "status", "created_at", "closes_at", "title"}


def _copy_fields(instance: Any, skip: set[str]) -> dict[str, Any]:
    return {
        f.attname: getattr(instance, f.attname)
        for f in type(instance)._meta.concrete_fields
        if f.name not in skip and f.attname not in skip
    }


@audited.records("survey.duplicate", detail=audited.duplicate)
@transaction.atomic
def survey_duplicate(*, survey: Survey, owner: User) -> Survey:
    """A new draft with ``survey``'s settings, budget and questions (designs included), a new
    random slug and the title "… (copy)"; owned by ``owner``. No report, tally, invitation,
    release or collaborator is copied: the copy's privacy budget is whole because it has no
    data yet. The close date is left empty (the original's may be past)."""
    title = survey.title[: TITLE_MAX - len(COPY_SUFFIX)] + COPY_SUFFIX
    copy = Survey(owner=owner, title=title, **_copy_fields(survey, _SURVEY_NOT_COPIED))
    copy.save()
    Question.objects.bulk_create(
        [
            Question(survey=copy, **_copy_fields(q, {"id", "survey"}))
            for q in Question.objects.filter(survey=survey).order_by("position", "id")
        ]
    )
    return copy


def _transition(survey: Survey, source: str, target: str, refusal: str, code: ErrorCode) -> Survey:
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != source:
            raise Conflict(refusal.format(status=locked.status), code=code)
        locked.status = target
        locked.save(update_fields=["status"])
    survey.status = target
    return survey


@audited.records("survey.archive")
def survey_archive(*, survey: Survey) -> Survey:
    """closed → archived: hidden from the default survey list, read-only (estimates, exports and
    release results stay readable). A survey must be closed first, so archiving never stops
    respondents by surprise; a draft has nothing to keep and can be deleted instead."""
    return _transition(
        survey,
        Survey.Status.CLOSED,
        Survey.Status.ARCHIVED,
        "Only a closed survey can be archived (this one is {status}): close it first.",
        ErrorCode.NOT_CLOSED,
    )


@audited.records("survey.unarchive")
def survey_unarchive(*, survey: Survey) -> Survey:
    """archived → closed: back in the default list; releases and invitations work again as for
    any closed survey. A survey is never reopened to respondents."""
    return _transition(
        survey,
        Survey.Status.ARCHIVED,
        Survey.Status.CLOSED,
        "Only an archived survey can be unarchived (this one is {status}).",
        ErrorCode.NOT_ARCHIVED,
    )


@audited.records("survey.delete")
def survey_delete(*, survey: Survey, confirm: Any) -> None:
    """Delete the survey with everything recorded for it, irreversibly: questions, reports,
    tallies, invitations, collaborators, releases and the ledger entries that charged the
    budget (docs/teams.md#deleting).

    The ledger goes with the reports on purpose: it bounds what may still be *computed* from
    those reports, and once they are deleted nothing can be. Releases already downloaded stay
    wherever they were saved. ``confirm`` must be the slug, typed again (400 naming
    ``confirm``); an open survey must be closed first (409), so no respondent is cut off
    mid-answer.
    """
    if not isinstance(confirm, str) or confirm != survey.slug:
        raise InvalidInput.single(
            "confirm", f"Type the survey's slug, {survey.slug}, to confirm the deletion."
        )
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status == Survey.Status.OPEN:
            raise Conflict(
                "Close the survey before deleting it: it is still accepting answers.",
                code=ErrorCode.SURVEY_OPEN,
            )
        # Django collects the cascade (questions, submissions, tallies, invitations,
        # collaborators; the releases app's releases and ledger entries) in this transaction.
        locked.delete()


# --- the team -----------------------------------------------------------------------------------


@audited.records("collaborator.add", detail=audited.collaborator)
def collaborator_set(*, survey: Survey, username: str, role: str) -> tuple[Collaborator, bool]:
    """Share ``survey`` with ``username`` as ``role`` (viewer or editor); posting again changes
    the role. Returns ``(collaborator, created)``. An unknown or inactive username, or the owner
    themself, is a 400 naming ``username``."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise InvalidInput.single("username", f"No researcher is called {username!r}.")
    if user.pk == survey.owner_id:
        raise InvalidInput.single("username", f"{username} owns this survey already.")
    try:
        with transaction.atomic():
            collaborator, created = Collaborator.objects.update_or_create(
                survey=survey, user=user, defaults={"role": role}
            )
    except IntegrityError:  # a concurrent first share of the same user: that one won
        collaborator = Collaborator.objects.get(survey=survey, user=user)
        collaborator.role = role
        collaborator.save(update_fields=["role"])
        created = False
    return collaborator, created


@audited.records("collaborator.remove", detail=audited.collaborator_removed)
def collaborator_remove(*, survey: Survey, username: str) -> bool:
    """Stop sharing ``survey`` with ``username``; False if it was not shared with them."""
    deleted, _ = Collaborator.objects.filter(survey=survey, user__username=username).delete()
    return deleted > 0
