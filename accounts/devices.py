"""Which browser a researcher signs in from: a coarse summary of its user agent for the sessions
page, and a device cookie to tell a new browser from a known one (docs/accounts.md#new-device).

Why a device cookie rather than a fingerprint (user agent + address prefix): the cookie is a
random value set only on a researcher's browser at sign-in (respondents never get it), and the
server keeps only its SHA-256 digest per account, so nothing here stores an IP address or a full
user agent. Its trade-off: clearing cookies or a private window makes every sign-in "new" (an
email too many, never one too few for a browser that kept its cookie), and a thief of the cookie
jar also passes as the known browser — the email is a tripwire, not an authentication factor.
A fingerprint would need researchers' addresses stored, and would miss a thief behind the same
network prefix or browser version.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts import keys
from accounts.mail import email_configured
from accounts.models import KnownDevice

logger = logging.getLogger(__name__)

COOKIE = "deniable_device"
#: 400 days, the longest lifetime Chromium keeps a cookie for.
COOKIE_SECONDS = 400 * 24 * 3600
#: The request attribute through which a sign-in asks the middleware to set the cookie.
PENDING_ATTR = "_deniable_device_cookie"

_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Chromium/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iOS"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


def summary(user_agent: str) -> str:
    """ "Firefox on Linux": enough to recognise one's own browsers, too coarse to single one out
    (no versions, no build strings)."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "")
    if not browser and re.match(r"^[\w.-]+/[\d.]+$", user_agent.strip()):
        browser = user_agent.split("/")[0][:40]  # a script, e.g. python-requests
    if browser and system:
        return f"{browser} on {system}"
    return browser or (f"A browser on {system}" if system else "Unknown browser")


def request_summary(request: HttpRequest) -> str:
    return summary(request.headers.get("User-Agent", ""))[:100]


def note_sign_in(request: HttpRequest, user: User) -> None:
    """Remember this browser for ``user``; email them when it is new to their account. The very
    first browser of an account (its sign-up, or its first sign-in) is not announced."""
    if not (request.META.get("SERVER_NAME") or request.META.get("HTTP_HOST")):
        return  # not a request from a browser (the test client's force_login): no cookie to set
    cookie = request.COOKIES.get(COOKIE, "")
    if cookie and KnownDevice.objects.filter(user=user, digest=keys.digest(cookie)).exists():
        return
    if not cookie or len(cookie) > 100:
        cookie = keys.new_key()
        setattr(request, PENDING_ATTR, cookie)
    first = not KnownDevice.objects.filter(user=user).exists()
    device = request_summary(request)
    try:
        with transaction.atomic():
            KnownDevice.objects.create(user=user, digest=keys.digest(cookie), device=device)
    except IntegrityError:  # the same browser signing in twice at once: already announced
        return
    if not first:
        # Sent at once: a sign-in is rare, and the notice must not wait for a worker.
        _announce(request, user, device)


def _announce(request: HttpRequest, user: User, device: str) -> None:
    if not user.email or not email_configured():
        return
    body = render_to_string(
        "accounts/new_device_email.txt",
        {
            "username": user.get_username(),
            "device": device,
            "at": timezone.now(),
            "sessions_url": request.build_absolute_uri(reverse("account-sessions")),
        },
    )
    try:
        send_mail("New sign-in to your Deniable account", body, None, [user.email])
    except Exception:  # noqa: BLE001 — a failed notice must not fail the sign-in
        logger.warning("The new-device email could not be sent.")


def set_cookie(request: HttpRequest, response: HttpResponse) -> None:
    """Set the device cookie a sign-in asked for (HttpOnly, Lax, Secure where sessions are)."""
    value = getattr(request, PENDING_ATTR, "")
    if value:
        response.set_cookie(
            COOKIE,
            value,
            max_age=COOKIE_SECONDS,
            httponly=True,
            secure=settings.SESSION_COOKIE_SECURE,
            samesite="Lax",
        )
