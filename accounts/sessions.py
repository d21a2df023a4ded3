"""A researcher's signed-in sessions: listed on the sessions page and by the API, ended one by
one, all but this one, or everywhere (docs/accounts.md#sessions). The page
(accounts.session_views) and the API (accounts.api.session_views) call the same services here:
:func:`sessions_for`, :func:`session_end` and :func:`sessions_end`.

Each session login puts a random marker in the session's data and a row with the marker's
SHA-256 digest in :class:`~accounts.models.ResearcherSession`. :class:`SessionGuardMiddleware`
ends, at its next request, every signed-in session whose row is gone (signed out elsewhere) or
that has no marker at all (made before this existed): removing rows is signing out, whatever the
session store keeps until its expiry. Respondent paths are never looked at (deniable.locale):
nothing of a researcher's session moves when they answer a survey in the same browser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY, logout
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.db.models import QuerySet
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts import devices, keys
from accounts.models import ApiToken, ResearcherSession
from deniable.errors import NotFound
from deniable.locale import is_respondent_path
from deniable.users import signed_in

MARKER = "_deniable_session"
#: How stale ``last_seen`` may get before a request writes it: one write a minute at most.
LAST_SEEN_STEP = timedelta(seconds=60)
#: The request attribute a sign-in sets to say how it signed in ("password", "sso").
VIA_ATTR = "_deniable_sign_in_via"


def _digest(request: HttpRequest) -> str:
    marker = request.session.get(MARKER)
    return keys.digest(marker) if isinstance(marker, str) and marker else ""


def _oldest_alive() -> tuple[Any, Any]:
    """Rows of sessions that expired (idle, or older than the cap) are not shown."""
    now = timezone.now()
    idle = now - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    started = now - timedelta(seconds=settings.DENIABLE_SESSION_MAX_AGE_SECONDS)
    return idle, started


def sessions_for(*, user: User) -> QuerySet[ResearcherSession]:
    idle, started = _oldest_alive()
    return ResearcherSession.objects.filter(
        user=user, last_seen__gte=idle, created__gte=started
    ).order_by("-last_seen", "-id")


def current_session_id(request: HttpRequest, *, user: User | None = None) -> int | None:
    """The id of ``request``'s own session (of ``user``'s sessions, when given), if tracked."""
    digest = _digest(request)
    if not digest:
        return None
    rows = ResearcherSession.objects.filter(digest=digest)
    if user is not None:
        rows = rows.filter(user=user)
    return rows.values_list("pk", flat=True).first()


@dataclass(frozen=True)
class SignedOut:
    """What a sign-out ended: how many sessions and API tokens, and whether the session asking
    was among them (it is then logged out)."""

    sessions: int
    tokens: int
    current: bool = False


@transaction.atomic
def session_start(*, request: HttpRequest, user: User) -> None:
    """Track the session ``request`` just logged ``user`` into (the signal below)."""
    digest = _digest(request)
    if digest and ResearcherSession.objects.filter(digest=digest, user=user).exists():
        return  # the second half of a two-factor login, or a login inside the same session
    idle, started = _oldest_alive()
    ResearcherSession.objects.filter(user=user, last_seen__lt=idle).delete()
    ResearcherSession.objects.filter(user=user, created__lt=started).delete()
    marker = keys.new_key()
    request.session[MARKER] = marker
    ResearcherSession.objects.create(
        user=user,
        digest=keys.digest(marker),
        device=devices.request_summary(request),
        via=getattr(request, VIA_ATTR, "password"),
    )
    devices.note_sign_in(request, user)


def session_revoke(*, user: User, session_id: int) -> bool:
    """End one of ``user``'s sessions; False when it is not theirs (or already ended)."""
    deleted, _ = ResearcherSession.objects.filter(user=user, pk=session_id).delete()
    return bool(deleted)


@transaction.atomic
def sessions_sign_out(
    *, user: User, keep_request: HttpRequest | None = None, revoke_tokens: bool = False
) -> SignedOut:
    """End every session of ``user`` (all but the one of ``keep_request`` when given), and their
    API tokens too when asked."""
    rows = ResearcherSession.objects.filter(user=user)
    if keep_request is not None:
        rows = rows.exclude(digest=_digest(keep_request))
    _, ended = rows.delete()
    revoked: dict[str, int] = {}
    if revoke_tokens:
        _, revoked = ApiToken.objects.filter(user=user).delete()
    return SignedOut(
        sessions=ended.get(ResearcherSession._meta.label, 0),
        tokens=revoked.get(ApiToken._meta.label, 0),
    )


def session_end(*, user: User, session_id: int, request: HttpRequest | None = None) -> bool:
    """End one of ``user``'s sessions: the sessions page's "Sign out" and ``DELETE`` on the API.

    ``request`` is the session asking, if a session is asking (a token request has none).
    Someone else's session and a missing one are the same :class:`NotFound`, so an id says
    nothing about other accounts. Returns True when the session ended was ``request``'s own,
    which is then logged out."""
    current = current_session_id(request, user=user) if request is not None else None
    if not session_revoke(user=user, session_id=session_id):
        raise NotFound("No such session.")
    if request is not None and current == session_id:
        logout(request)
        return True
    return False


def sessions_end(
    *, user: User, everywhere: bool, revoke_tokens: bool = False, request: HttpRequest | None = None
) -> SignedOut:
    """Sign ``user`` out of their other sessions, or everywhere, and revoke their API tokens too
    when asked: the sessions page's two buttons and ``POST …/auth/sessions/sign-out/``.

    ``request`` is the session asking, if a session is asking: "the others" keeps it and
    "everywhere" logs it out. A token request has no session of its own, so for it every session
    is one of the others. A session of another account (a cookie sent beside a token) is neither
    kept nor logged out."""
    here = request if request is not None and current_session_id(request, user=user) else None
    result = sessions_sign_out(
        user=user, keep_request=None if everywhere else here, revoke_tokens=revoke_tokens
    )
    if everywhere and here is not None:
        logout(here)
        return replace(result, current=True)
    return result


@receiver(user_logged_in, dispatch_uid="accounts.sessions.track")
def _track(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Session logins only: the API token exchange sends this signal too, with no session login.
    session = getattr(request, "session", None)
    if request is None or session is None or SESSION_KEY not in session:
        return
    session_start(request=request, user=user)


@receiver(user_logged_out, dispatch_uid="accounts.sessions.untrack")
def _untrack(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if request is None or not hasattr(request, "session"):
        return
    digest = _digest(request)
    if digest:
        ResearcherSession.objects.filter(digest=digest).delete()


class SessionGuardMiddleware:
    """Right after Django's authentication: a signed-in session without its row is logged out
    before any view or gate sees it; a live one has its ``last_seen`` moved (once a minute)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_respondent_path(request.path_info):
            self._check(request)
        response = self.get_response(request)
        devices.set_cookie(request, response)
        return response

    def _check(self, request: HttpRequest) -> None:
        user = signed_in(request.user)
        if user is None:
            return
        digest = _digest(request)
        row = (
            ResearcherSession.objects.filter(digest=digest, user=user)
            .values_list("pk", "last_seen")
            .first()
            if digest
            else None
        )
        if row is None:
            logout(request)  # flushes the session: the cookie now names nothing
            return
        now = timezone.now()
        if now - row[1] >= LAST_SEEN_STEP:
            ResearcherSession.objects.filter(pk=row[0]).update(last_seen=now)
