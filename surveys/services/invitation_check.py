"""Checking an invitation token without using it up (docs/api.md#invitation-check).

The respondent page asks as soon as it opens, so a used or unknown invitation is refused before
anything is answered. Nothing is written and nothing is kept: the check reads the digest's row
only, so it cannot tie a later response to the token.
"""

from __future__ import annotations

from deniable.errors import InvalidInput
from surveys.models import Invitation, Survey
from surveys.services.invitations import invitation_digest

MAX_TOKEN_LENGTH = 200  # the same bound the submission service accepts


def invitation_check(*, survey: Survey, token: object) -> bool:
    """True when ``token`` is an unused invitation of this invite-only, accepting survey.

    An open-access survey needs no invitation, so no token is "valid" for it.
    """
    if not isinstance(token, str):
        raise InvalidInput.single("token", "Must be the invitation token string.")
    if not 0 < len(token) <= MAX_TOKEN_LENGTH or "\x00" in token:
        raise InvalidInput.single(
            "token", f"Must be the invitation token: 1 to {MAX_TOKEN_LENGTH} characters."
        )
    if survey.access != Survey.Access.INVITE or not survey.is_accepting():
        return False
    return Invitation.objects.filter(
        survey=survey, digest=invitation_digest(token), used=False
    ).exists()
