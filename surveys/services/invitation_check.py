"""Checking an invitation token without using it up (docs/api.md#invitation-check).

The respondent page asks as soon as it opens, so a used or unknown invitation is refused before
anything is answered. Nothing is written and nothing is kept: the check reads the digest's row
only, so it cannot tie a later response to the token.
"""

from __future__ import annotations

from surveys.definitions.specs import MAX_TOKEN_LENGTH
from surveys.models import Invitation, Survey
from surveys.services.invitations import invitation_digest

__all__ = ["MAX_TOKEN_LENGTH", "invitation_check"]


def invitation_check(*, survey: Survey, token: str) -> bool:
    """True when ``token`` is an invitation of this invite-only, accepting survey that is
    neither revoked nor published as used: an unused one, or one whose use is not yet published.

    ``token`` was validated by :class:`surveys.inputs.InvitationCheckRequestSerializer`. An
    open-access survey needs no invitation, so no token is "valid" for it.
    """
    if survey.access != Survey.Access.INVITE or not survey.is_accepting():
        return False
    # Not ``used=False``: a use is shown only with its batch (issue 21, item 3), so a token
    # spent by a submission still waiting for its batch answers like an unused one.
    return Invitation.objects.filter(
        survey=survey, digest=invitation_digest(token), revoked=False, sealed=False
    ).exists()
