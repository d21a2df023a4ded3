"""Which allowance a respondent's post is charged to (issue 21, item 13).

The survey's submission allowance (:func:`surveys.collection.ratelimit.submission_rate_check`)
bounds how
fast reports can be stored. It used to be charged before the body was read, so tokenless or
malformed junk posted to an invite-only survey spent it and the real invitees got 429. Now a post
is charged to the survey only if it could be stored: its body passed validation, the survey
accepts answers, and — invite-only — its token is one of the survey's still unused. Anything
else is junk, charged to its sender's own allowance
(:func:`surveys.collection.ratelimit.junk_rate_check`).

The token test is a read of the digest's row only (nothing is written or kept); the submission
then spends the token with its own conditional ``UPDATE``, as before. A legitimate retry of an
accepted invite-only post (its token now spent) counts as junk: a few posts, far below the limit.
"""

from __future__ import annotations

from django.http import HttpRequest

from surveys.collection.ratelimit import junk_rate_check, submission_rate_check
from surveys.definitions.specs import SubmissionSpec
from surveys.models import Invitation, Survey
from surveys.services.invitations import invitation_digest


def client_of(request: HttpRequest) -> str:
    """The peer address, used only as the junk counter's (salted, hashed) key. Behind a proxy
    this is the proxy's: all junk then shares one allowance, still apart from the survey's."""
    return str(request.META.get("REMOTE_ADDR") or "")


def could_be_stored(*, survey: Survey, spec: SubmissionSpec | None) -> bool:
    """True when a validated post would be stored if nothing changed before its ``INSERT``."""
    if spec is None or not survey.is_accepting():
        return False
    if survey.access != Survey.Access.INVITE:
        return True
    if not spec.token:
        return False
    digest = invitation_digest(spec.token)
    return Invitation.objects.filter(survey=survey, digest=digest, used=False).exists()


def charge_respondent_post(*, survey: Survey, spec: SubmissionSpec | None, client: str) -> None:
    """Charge the post to the survey's allowance or to its sender's junk allowance; raises
    :class:`surveys.collection.ratelimit.RateLimited` (429) past either."""
    if could_be_stored(survey=survey, spec=spec):
        submission_rate_check(survey_id=survey.pk)
    else:
        junk_rate_check(client=client)
