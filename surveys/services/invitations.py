"""Invitations: one-time tokens for invite-only surveys.

Invitation tokens are stored only as HMAC-SHA256 digests (:func:`invitation_digest`) and a
submission consumes its token with one conditional ``UPDATE``
(:mod:`surveys.services.submission_storage`), so a token is accepted exactly once even under
concurrent posts. The table has no link to submissions, and nothing here adds one: the counts
are aggregates over the survey's invitations.

Counts (``GET …/invitations/``): ``issued`` every token ever created for the survey; ``used``
spent by a submission; ``revoked`` withdrawn unused by the researcher; ``remaining`` =
issued − used − revoked, the links that still work.

Revoking is one conditional ``UPDATE`` of the unused rows, setting ``used`` and ``revoked``
together: it serializes with a concurrent submission on the row, so a token is either spent or
revoked, never both, and every path that redeems only ``used=False`` rows refuses it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import asdict, dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q

from deniable.errors import Conflict
from surveys.models import Invitation, Survey
from surveys.specs import MAX_INVITATIONS

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


def invitations_create(*, survey: Survey, count: int) -> list[str]:
    """Create ``count`` one-time tokens for an invite-only survey; the tokens are returned once.

    ``count`` was validated (1 to ``MAX_INVITATIONS``) by
    :class:`surveys.inputs.InvitationRequestSerializer`."""
    if survey.access != Survey.Access.INVITE:
        raise Conflict(
            "This survey is open to anyone with the link; set access to 'invite' to use "
            "invitation tokens.",
            code="not_invite_only",
        )
    if survey.status == Survey.Status.CLOSED:
        raise Conflict("The survey is closed.", code="survey_closed")
    if survey.status == Survey.Status.ARCHIVED:
        raise Conflict("The survey is archived: it is read-only.", code="survey_archived")
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
        used=Count("pk", filter=Q(used=True, revoked=False)),
        revoked=Count("pk", filter=Q(revoked=True)),
    )
    return InvitationCounts(**counts)


def invitations_revoke(*, survey: Survey) -> int:
    """Revoke every unused token of the survey; returns how many were revoked. An archived
    survey is read-only (its unused tokens already work nowhere: it accepts no answers)."""
    if survey.status == Survey.Status.ARCHIVED:
        raise Conflict("The survey is archived: it is read-only.", code="survey_archived")
    with transaction.atomic():
        # sealed: a revocation is the researcher's act, not a respondent's; nothing for the next
        # batch to re-write (surveys.services.batches re-writes used marks not yet sealed).
        return Invitation.objects.filter(survey=survey, used=False).update(
            used=True, revoked=True, sealed=True
        )


def invitation_links_csv(links: list[str]) -> str:
    """The links as a CSV file of one column and no header: one link per line.

    A link starts with ``http`` and holds no comma, quote or line break, so it needs neither
    quoting nor the text prefix of the other exports (it cannot be read as a formula).
    """
    for link in links:
        if not link.startswith(("http://", "https://")) or any(c in link for c in ',"\r\n'):
            raise ValueError(f"not a plain link: {link!r}")
    return "".join(f"{link}\n" for link in links)
