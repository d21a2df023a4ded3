"""Two-factor login: TOTP (an authenticator app) and one-time recovery codes, with django-otp
(docs/accounts.md#two-factor).

Why django-otp rather than django-allauth's MFA: Deniable keeps Django's own login, password
reset and sessions (and django-axes around them); django-otp adds devices and a verified flag on
the session to exactly that, where allauth would replace the whole account flow.

* Who must: staff always (``DENIABLE_OTP_STAFF``, checked by ``check --deploy``), every
  researcher when ``DENIABLE_OTP_REQUIRED`` is on; anyone may turn it on.
* A wrong code is a failed login for django-axes (``user_login_failed``): 5 failures of
  password or code lock the username, the same counter as the login page and the token API.
* A recovery code (django-otp's static token) works once: django-otp deletes it when it matches.
* An API token records the second factor it was issued past, and acts only while that meets
  what the account needs now (:func:`token_refusal`, asked at every request with a token).
"""

from __future__ import annotations

import io
import time
from typing import Any

import qrcode
import qrcode.image.svg
from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import get_user_model, login, user_logged_in, user_login_failed
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.http import HttpRequest
from django_otp import device_classes, devices_for_user, match_token
from django_otp import login as otp_login
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.oidc import SSO_MFA_KEY
from deniable.errors import DomainError, ErrorCode

RECOVERY_CODES = 10
TOTP_NAME = "Authenticator app"
RECOVERY_NAME = "Recovery codes"


class OtpRequired(DomainError):
    """401 from the token API: this account needs its code (DESIGN §8.8)."""

    status_code = 401
    code = ErrorCode.OTP_REQUIRED


def required_for(user: User) -> bool:
    """Must this user have a second factor before using the site?"""
    return bool((user.is_staff and settings.DENIABLE_OTP_STAFF) or settings.DENIABLE_OTP_REQUIRED)


def has_device(user: Any) -> Q:
    """Whether ``user`` (a user, or an ``OuterRef`` to one) has a confirmed device of any kind
    django-otp has installed, as a query condition: :func:`enrolled` asks it alone, the token
    lookup in the query that loads the token (accounts.services.api_token_authenticate)."""
    exists = [Exists(m.objects.filter(user=user, confirmed=True)) for m in device_classes()]
    return Q(*exists, _connector=Q.OR)


def enrolled(user: User) -> bool:
    """Has ``user`` a confirmed device (turned two-factor login on)?"""
    return bool(get_user_model().objects.filter(has_device(OuterRef("pk")), pk=user.pk).exists())


def needs_code(user: User, *, is_enrolled: bool | None = None) -> bool:
    """A login of ``user`` is complete only after a code (enrolled, or obliged to enrol). The one
    place this is decided: for the login pages, the gate, the token exchange and every request
    with a token. ``is_enrolled`` is for a caller whose query has already asked."""
    if required_for(user):
        return True
    return enrolled(user) if is_enrolled is None else is_enrolled


#: What a token made in a single sign-on session records when the provider asserted
#: multi-factor authentication (see :func:`session_factor`).
SSO_FACTOR = "sso"


def session_factor(request: HttpRequest) -> str:
    """What put this session past the second factor, recorded on a token made in it
    (:func:`factor_holds`): the persistent id of the django-otp device that verified it
    (``OTPMiddleware`` sets ``request.user.otp_device`` while that device is the user's and
    confirmed), :data:`SSO_FACTOR`, or "" (not past a second factor)."""
    device = getattr(request.user, "otp_device", None)
    if device is not None:
        return str(device.persistent_id)
    # Single sign-on whose provider asserted multi-factor authentication, where trusted
    # (DENIABLE_OIDC_TRUST_MFA; docs/accounts.md#sso).
    session = getattr(request, "session", None)
    if (
        settings.DENIABLE_OIDC_TRUST_MFA
        and session is not None
        and session.get(SSO_MFA_KEY) is True
    ):
        return SSO_FACTOR
    return ""


def session_verified(request: HttpRequest) -> bool:
    """Is this session past the second factor?"""
    return bool(session_factor(request))


def factor_holds(user: User, factor: str) -> bool:
    """Does the second factor a token was issued past still stand for ``user``? As django-otp
    judges a session: the device must still exist, be confirmed and be the user's, so removing
    or replacing it (the admin, turning two-factor login off, a new app) withdraws it from the
    tokens issued with it; the provider's assertion, while ``DENIABLE_OIDC_TRUST_MFA`` is on."""
    if factor == SSO_FACTOR:
        return bool(settings.DENIABLE_OIDC_TRUST_MFA)
    if not factor:
        return False
    device = Device.from_persistent_id(factor)
    return device is not None and device.user_id == user.pk and bool(device.confirmed)


def token_refusal(user: User, *, factor: str, is_enrolled: bool) -> str:
    """Why a token issued past ``factor`` ("" for none) may not act for ``user`` now, or "".

    A token stands for a login, so it must be past the second factor the account needs *now*
    (:func:`needs_code`), not when the token was issued: the account may have been made staff,
    ``DENIABLE_OTP_STAFF`` or ``DENIABLE_OTP_REQUIRED`` turned on, or two-factor login set up
    since. Asked at every request, from the user's row as it is then, so no way of changing
    ``is_staff`` (a form, ``save()``, ``QuerySet.update``) escapes it."""
    if not needs_code(user, is_enrolled=is_enrolled) or factor_holds(user, factor):
        return ""
    if not is_enrolled:
        return (
            "Two-factor login is required for this account: set it up on the site, then "
            "create a new token with your code."
        )
    return (
        "This token was not issued with your current second factor (it was issued before "
        "two-factor login was on, or with a device since removed): create a new token with "
        "your code (otp) or on the API tokens page."
    )


def locked_out(request: HttpRequest, user: User) -> bool:
    return bool(AxesProxyHandler.is_locked(request, credentials={"username": user.username}))


def check_code(request: HttpRequest, user: User, code: str) -> Device | None:
    """The device ``code`` matches (a recovery code is used up), or None — counted by django-axes
    as a failed login. The caller checks :func:`locked_out` first."""
    device = match_token(user, code.strip().replace(" ", "")) if code.strip() else None
    if device is None:
        user_login_failed.send(
            sender=__name__, credentials={"username": user.username}, request=request
        )
    return device


PENDING_KEY = "two_factor_pending"
#: How long the code page waits after the password before asking for the password again.
PENDING_SECONDS = 300


def start_pending(request: HttpRequest, user: User) -> None:
    """Password right, code still to come: no login yet (no authenticated session, and no
    ``user_logged_in``, which would reset django-axes' count between wrong codes)."""
    request.session.cycle_key()
    request.session[PENDING_KEY] = {
        "user": user.pk,
        "backend": getattr(user, "backend", ""),
        "at": time.time(),
    }


def pending_user(request: HttpRequest) -> tuple[User, str] | None:
    pending = request.session.get(PENDING_KEY)
    if not pending or time.time() - pending["at"] > PENDING_SECONDS:
        return None
    user = User.objects.filter(pk=pending["user"], is_active=True).first()
    return (user, pending["backend"]) if user is not None else None


def complete_login(request: HttpRequest, user: User, device: Device) -> None:
    """Log in past the second factor. From the password page's pending state this is Django's
    ``login`` (which sends ``user_logged_in``: django-axes resets the count); a session already
    logged in another way (the admin's login page) is marked verified and the signal sent."""
    pending = pending_user(request)
    if pending is not None and not request.user.is_authenticated:
        request.session.pop(PENDING_KEY, None)
        login(request, user, backend=pending[1] or None)
    else:
        user_logged_in.send(sender=user.__class__, request=request, user=user)
    otp_login(request, device)


# --- enrolment ---------------------------------------------------------------------------------


def pending_totp(user: User) -> TOTPDevice:
    """The user's unconfirmed TOTP device (made once), whose QR code the setup page shows."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=TOTP_NAME, confirmed=False)
    return device


def qr_svg(device: TOTPDevice) -> str:
    """The otpauth:// URL as an inline SVG (no PIL, no external request, no script)."""
    image = qrcode.make(device.config_url, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    buffer = io.BytesIO()
    image.save(buffer)
    text = buffer.getvalue().decode()
    return text[text.index("<svg") :]  # drop the XML declaration: the SVG sits inside HTML


def secret_b32(device: TOTPDevice) -> str:
    from base64 import b32encode

    return b32encode(device.bin_key).decode()


@transaction.atomic
def confirm_totp(request: HttpRequest, user: User, code: str) -> list[str] | None:
    """Confirm the pending device with a code from the app; returns new recovery codes (shown
    once) and completes the login, or None for a wrong code (counted by django-axes)."""
    device = pending_totp(user)
    if not device.verify_token(code.strip().replace(" ", "")):
        user_login_failed.send(
            sender=__name__, credentials={"username": user.username}, request=request
        )
        return None
    TOTPDevice.objects.filter(user=user, confirmed=True).delete()  # one app at a time
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    codes = new_recovery_codes(user)
    complete_login(request, user, device)
    return codes


def new_recovery_codes(user: User) -> list[str]:
    """Replace the user's recovery codes with :data:`RECOVERY_CODES` new ones."""
    device, _ = StaticDevice.objects.get_or_create(
        user=user, name=RECOVERY_NAME, defaults={"confirmed": True}
    )
    device.token_set.all().delete()
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=c) for c in codes])
    return codes


def recovery_codes_left(user: User) -> int:
    return StaticToken.objects.filter(device__user=user).count()


def disable(user: User) -> None:
    """Remove every device of the user (their app and their recovery codes)."""
    for device in devices_for_user(user, confirmed=None):
        device.delete()


def describe(user: User) -> dict[str, Any]:
    return {
        "enrolled": enrolled(user),
        "required": required_for(user),
        "recovery_codes_left": recovery_codes_left(user),
    }
