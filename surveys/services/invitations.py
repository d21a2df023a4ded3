"""Invitations: one-time tokens for invite-only surveys.

Invitation tokens are stored only as HMAC-SHA256 digests (:func:`invitation_digest`) and a
submission consumes its token with one conditional ``UPDATE``
(:mod:`surveys.services.submission_storage`), so a token is accepted exactly once even under
concurrent posts.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import transaction

from deniable.errors import Conflict, InvalidInput
from surveys.models import Invitation, Survey

MAX_INVITATIONS = 10_000


def invitation_digest(token: str) -> str:
    """HMAC-SHA256 of a token under ``INVITATION_TOKEN_KEY``: the only form ever stored."""
    key = settings.INVITATION_TOKEN_KEY.encode()
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def invitations_create(*, survey: Survey, count: int) -> list[str]:
    """Create ``count`` one-time tokens for an invite-only survey; the tokens are returned once."""
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_INVITATIONS:
        raise InvalidInput.single("count", f"A whole number from 1 to {MAX_INVITATIONS}.")
    if survey.access != Survey.Access.INVITE:
        raise Conflict(
            "This survey is open to anyone with the link; set access to 'invite' to use "
            "invitation tokens.",
            code="not_invite_only",
        )
    if survey.status == Survey.Status.CLOSED:
        raise Conflict("The survey is closed.", code="survey_closed")
    tokens = [secrets.token_urlsafe(16) for _ in range(count)]
    with transaction.atomic():
        Invitation.objects.bulk_create(
            [Invitation(survey=survey, digest=invitation_digest(t)) for t in tokens],
            batch_size=1000,
        )
    return tokens
