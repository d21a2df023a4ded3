"""Account writes: API tokens, sign-up invitations, researcher sign-up (docs/accounts.md).

Services raise the domain errors of :mod:`deniable.errors`; the API and the pages map them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, OuterRef
from django.utils import timezone

from accounts import keys, two_factor
from accounts.models import ApiToken, SignupInvitation
from deniable.errors import Conflict, DomainError, ErrorCode, InvalidInput, NotFound


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown once, never stored


def api_token_create(
    *, user: User, name: str, expires_in_days: int | None = None, second_factor: str = ""
) -> IssuedToken:
    """A new named token for ``user``; its key is returned here and nowhere else.

    ``second_factor`` is what the login issuing it passed (the device that matched the code, or
    :func:`accounts.two_factor.session_factor` of the page's session); "" for none, so a caller
    that checked no code cannot issue a token an account with a second factor could use."""
    days = settings.DENIABLE_API_TOKEN_DAYS if expires_in_days is None else expires_in_days
    if not 1 <= days <= settings.DENIABLE_API_TOKEN_MAX_DAYS:
        raise InvalidInput.single(
            "expires_in_days",
            f"A whole number of days from 1 to {settings.DENIABLE_API_TOKEN_MAX_DAYS}.",
        )
    with transaction.atomic():
        # Lock the user's row: two concurrent creations cannot both pass the cap.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        active = ApiToken.objects.filter(user=user, expires__gt=timezone.now()).count()
        if active >= settings.DENIABLE_API_TOKENS_PER_USER:
            raise Conflict(
                f"You have {active} unexpired API tokens, the most allowed: revoke one "
                "first (the API tokens page, or DELETE on the token list's entries).",
                code=ErrorCode.TOO_MANY_TOKENS,
            )
        key = keys.new_key(keys.API_TOKEN_PREFIX)
        now = timezone.now()
        token = ApiToken.objects.create(
            user=user,
            name=name,
            digest=keys.digest(key),
            created=now,
            expires=now + timedelta(days=days),
            second_factor=second_factor,
        )
    return IssuedToken(token=token, key=key)


def api_token_replace(*, user: User, name: str) -> IssuedToken:
    """Revoke ``user``'s tokens called ``name`` and issue a new one (``seed_demo`` prints a fresh
    token on every ``make run`` without piling up old ones)."""
    with transaction.atomic():
        ApiToken.objects.filter(user=user, name=name).delete()
        return api_token_create(user=user, name=name)


class TokenRefused(DomainError):
    status_code = 401
    code = ErrorCode.AUTHENTICATION_FAILED


def api_token_authenticate(*, key: str, today: date | None = None) -> ApiToken:
    """The live token for ``key``; raises :class:`TokenRefused` (unknown, revoked or expired, a
    disabled account, or ``otp_required``: not past the second factor the account needs now).

    One query in the usual case: whether the user has a confirmed device is asked with the token
    (a device's own row is read only for a token issued past one, of an account that needs it).
    Records the day of use, writing at most once per token and day.
    """
    token = (
        ApiToken.objects.select_related("user")
        .annotate(
            user_enrolled=ExpressionWrapper(
                two_factor.has_device(OuterRef("user")), output_field=BooleanField()
            )
        )
        .filter(digest=keys.digest(key))
        .first()
    )
    if token is None:
        raise TokenRefused("Invalid token (unknown or revoked).", code=ErrorCode.INVALID_TOKEN)
    if token.is_expired:
        raise TokenRefused(
            f"The token expired on {token.expires:%Y-%m-%d}: create a new one.",
            code=ErrorCode.TOKEN_EXPIRED,
        )
    if not token.user.is_active:
        raise TokenRefused("The account is disabled.", code=ErrorCode.ACCOUNT_DISABLED)
    refusal = two_factor.token_refusal(
        token.user, factor=token.second_factor, is_enrolled=token.user_enrolled
    )
    if refusal:
        raise TokenRefused(refusal, code=ErrorCode.OTP_REQUIRED)
    today = today or timezone.localdate()
    if token.last_used != today:
        ApiToken.objects.filter(pk=token.pk).update(last_used=today)
        token.last_used = today
    return token


def api_token_revoke(*, user: User, token_id: int) -> None:
    """Delete one of ``user``'s tokens; someone else's (or a missing one) is a 404."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound("No such token.")


# --- sign-up ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: SignupInvitation
    token: str  # shown (or emailed) once, never stored


def signup_invitation_create(
    *, email: str, created_by: User | None, days: int | None = None
) -> IssuedInvitation:
    days = settings.DENIABLE_SIGNUP_INVITATION_DAYS if days is None else days
    if not 1 <= days <= 90:
        raise InvalidInput.single("days", "A whole number of days from 1 to 90.")
    token = keys.new_key()
    now = timezone.now()
    invitation = SignupInvitation.objects.create(
        email=email,
        digest=keys.digest(token),
        created=now,
        expires=now + timedelta(days=days),
        created_by=created_by,
    )
    return IssuedInvitation(invitation=invitation, token=token)


class InvitationRefused(DomainError):
    status_code = 400
    code = ErrorCode.INVITATION_REFUSED


def signup_invitation_check(*, token: str, lock: bool = False) -> SignupInvitation:
    """The usable invitation for ``token``; raises :class:`InvitationRefused` saying why not."""
    rows = SignupInvitation.objects.filter(digest=keys.digest(token))
    invitation = (rows.select_for_update() if lock else rows).first()
    if invitation is None:
        raise InvitationRefused(
            "This invitation link is not valid. Check that you copied all of it, or ask the "
            "administrator for a new one.",
            code=ErrorCode.INVITATION_UNKNOWN,
        )
    if invitation.used is not None:
        raise InvitationRefused(
            "This invitation link has already been used. Log in, or reset your password if "
            "you forgot it.",
            code=ErrorCode.INVITATION_USED,
        )
    if invitation.is_expired:
        raise InvitationRefused(
            f"This invitation link expired on {invitation.expires:%Y-%m-%d}. Ask the "
            "administrator for a new one.",
            code=ErrorCode.INVITATION_EXPIRED,
        )
    return invitation


def researcher_signup(
    *, username: str, email: str, password: str, invitation_token: str | None
) -> User:
    """Create a researcher account, consuming the invitation if one is given.

    Without an invitation, only when open sign-up is on. The caller has validated the username
    and password (Django's validators); the invitation is re-checked under a row lock, so two
    sign-ups with one link cannot both succeed.
    """
    with transaction.atomic():
        invitation = None
        if invitation_token:
            invitation = signup_invitation_check(token=invitation_token, lock=True)
            email = invitation.email
        elif not settings.DENIABLE_OPEN_SIGNUP:
            raise InvitationRefused(
                "Sign-up is by invitation only: ask an administrator for a link.",
                code=ErrorCode.INVITATION_REQUIRED,
            )
        if get_user_model().objects.filter(username__iexact=username).exists():
            raise InvalidInput.single("username", "A user with that username already exists.")
        user = get_user_model().objects.create_user(
            username=username, email=email, password=password
        )
        if invitation is not None:
            invitation.used = timezone.now()
            invitation.used_by = user
            invitation.save(update_fields=["used", "used_by"])
    return user


def signup_invitation_revoke(*, invitation_id: int) -> None:
    deleted, _ = SignupInvitation.objects.filter(pk=invitation_id, used__isnull=True).delete()
    if not deleted:
        raise NotFound("No such unused invitation.")
