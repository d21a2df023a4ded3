"""Invitations: one-time tokens for invite-only surveys.

Invitation tokens are stored only as HMAC-SHA256 digests (:func:`invitation_digest`) and a
submission consumes its token with one conditional ``UPDATE``
(:mod:`surveys.services.submission_storage`), so a token is accepted exactly once even under
concurrent posts. The table has no link to submissions, and nothing here adds one: the counts
are aggregates over the survey's invitations.

Counts (``GET …/invitations/``) move only by whole batches (issue 21, item 4): ``issued``
every token ever created for the survey; ``used`` spent by a *published* submission (a use is
shown with its batch, :func:`surveys.services.batches.submissions_publish`); ``revoked``
withdrawn by the researcher; ``remaining`` = issued − used − revoked: the links that still work
plus the uses still waiting for their batch, which must not be told apart.

Revoking is one conditional ``UPDATE`` of the unused rows, setting ``used`` and ``revoked``
together: it serializes with a concurrent submission on the row, so a token is either spent or
revoked, never both, and every path that redeems only ``used=False`` rows refuses it. The uses
still waiting for their batch are shown as revoked too (``revoked`` and not ``sealed``):
otherwise the tokens the check still calls valid after a revoke would be exactly the invitees
who just answered. Their batch turns them into published uses.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import asdict, dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q

from deniable import csv_cells
from deniable.errors import Conflict, ErrorCode
from surveys import audit_details as audited
from surveys.definitions.specs import MAX_INVITATIONS
from surveys.models import USED_UNSEALED, Invitation, Survey

__all__ = [
    "MAX_INVITATIONS",  # re-exported: the limit callers have always found here
    "InvitationCounts",
    "invitation_counts",
    "invitation_digest",
    "invitation_links_csv",
    "invitations_create",
    "invitations_revoke",
]


@dataclass(frozen=True)
class InvitationCounts:
    issued: int
    used: int
    revoked: int

    @property
    def remaining(self) -> int:
        return self.issued - self.used - self.revoked

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "remaining": self.remaining}


def invitation_digest(token: str) -> str:
    """HMAC-SHA256 of a token under ``INVITATION_TOKEN_KEY``: the only form ever stored."""
    key = settings.INVITATION_TOKEN_KEY.encode()
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


@audited.records("invitations.create", detail=audited.invitations_created)
def invitations_create(*, survey: Survey, count: int) -> list[str]:
    """Create ``count`` one-time tokens for an invite-only survey; the tokens are returned once.

    ``count`` was validated (1 to ``MAX_INVITATIONS``) by
    :class:`surveys.inputs.InvitationRequestSerializer`."""
    if survey.access != Survey.Access.INVITE:
        raise Conflict(
            "This survey is open to anyone with the link; set access to 'invite' to use "
            "invitation tokens.",
            code=ErrorCode.NOT_INVITE_ONLY,
        )
    if survey.status == Survey.Status.CLOSED:
        raise Conflict("The survey is closed.", code=ErrorCode.SURVEY_CLOSED)
    if survey.status == Survey.Status.ARCHIVED:
        raise Conflict("The survey is archived: it is read-only.", code=ErrorCode.SURVEY_ARCHIVED)
    tokens = [secrets.token_urlsafe(16) for _ in range(count)]
    with transaction.atomic():
        Invitation.objects.bulk_create(
            [Invitation(survey=survey, digest=invitation_digest(t)) for t in tokens],
            batch_size=1000,
        )
    return tokens


def invitation_counts(*, survey: Survey) -> InvitationCounts:
    """Issued, used and revoked tokens of a survey, in one aggregate query."""
    counts = Invitation.objects.filter(survey=survey).aggregate(
        issued=Count("pk"),
        used=Count("pk", filter=Q(used=True, revoked=False, sealed=True)),
        revoked=Count("pk", filter=Q(revoked=True)),
    )
    return InvitationCounts(**counts)


@audited.records("invitations.revoke", detail=audited.invitations_revoked)
def invitations_revoke(*, survey: Survey) -> int:
    """Revoke every unused token of the survey; returns how many were revoked. An archived
    survey is read-only (its unused tokens already work nowhere: it accepts no answers)."""
    if survey.status == Survey.Status.ARCHIVED:
        raise Conflict("The survey is archived: it is read-only.", code=ErrorCode.SURVEY_ARCHIVED)
    with transaction.atomic():
        unused = Invitation.objects.filter(survey=survey, used=False)
        # sealed: a revocation is the researcher's act, not a respondent's, and is shown at once;
        # nothing for the next batch to re-write (surveys.services.batches re-writes used marks
        # not yet sealed).
        revoked = unused.update(used=True, revoked=True, sealed=True)
        # The uses waiting for their batch read as revoked until it is published (see above),
        # and are counted in the answer like the unused ones: nothing tells them apart.
        waiting = Invitation.objects.filter(USED_UNSEALED, survey=survey)
        return revoked + waiting.filter(revoked=False).update(revoked=True)


#: The invitations CSV's one column.
INVITATION_LINKS_COLUMN = "link"


def invitation_links_csv(links: list[str]) -> str:
    """The links as a CSV file of one column, ``link``: a header, then one link per line,
    written like every Deniable CSV (deniable.csv_cells: ``'`` + the link)."""
    return csv_cells.csv_text([INVITATION_LINKS_COLUMN], ([link] for link in links))
