"""Security glue that Django and django-axes do not provide out of the box (see SECURITY.md).

- :class:`SecurityHeadersMiddleware`: ``Permissions-Policy`` and ``Cross-Origin-Resource-Policy``
  on every dynamic response, and ``Cache-Control: no-store`` unless a view chose its own policy
  (researcher pages show survey data and tokens; respondent pages can carry an invitation token).
- :class:`SessionLifetimeMiddleware`: an absolute cap on a researcher's session, on top of the
  sliding idle timeout (``SESSION_COOKIE_AGE`` + ``SESSION_SAVE_EVERY_REQUEST``).
- :func:`lockout_response`: django-axes' lockout answer — a page for the login forms, a JSON
  429 for the API token endpoint.
- :class:`ConstantPolicyCSPMiddleware`: django-csp's middleware, with the policy of a response
  that carries no nonce built once instead of twice per response.
- :func:`axes_client_str`: how axes names a client in its log lines — the username and path only,
  never the IP address or user agent (the application logs carry neither,
  docs/privacy-model.md#unlinkability).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.auth import SESSION_KEY, logout
from django.contrib.auth.signals import user_logged_in
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render

from deniable.errors import ErrorCode

SESSION_AUTH_STARTED_KEY = "_deniable_auth_started"


class SecurityHeadersMiddleware:
    """Headers Django 5.2 has no setting for. Sits after WhiteNoise, so static files keep their
    long-lived cache headers and only dynamic responses get ``no-store``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = getattr(settings, "DENIABLE_PERMISSIONS_POLICY", "")
        if policy:
            response.headers.setdefault("Permissions-Policy", policy)
        response.headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
        # Nothing dynamic here is worth caching and much of it is private: survey results,
        # API tokens, invitation links, a respondent's (randomized) form. Views that set their own
        # Cache-Control keep it.
        response.headers.setdefault("Cache-Control", "no-store")
        return response


# What a view's csp decorators leave on a response (csp.decorators): such a response's policy is
# its own, built by django-csp as usual.
_PER_RESPONSE_POLICY = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
_constant_policies: tuple[str, str] | None = None


@receiver(setting_changed, dispatch_uid="deniable.security.csp_settings_changed")
def _forget_policies(*, setting: str, **kwargs: Any) -> None:
    global _constant_policies
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _constant_policies = None


class ConstantPolicyCSPMiddleware(CSPMiddleware):
    """django-csp's ``CSPMiddleware``, unchanged for a response whose page drew a nonce or whose
    view set its own policy. Every other response (the JSON API, redirects, the respondent's
    submission) gets a policy that depends on the settings alone, so it is built once: django-csp
    builds both the policy and the report-only one (``dataclasses.asdict`` + ``build_policy``)
    for every response, ≈ 0.1 ms of a submission's CPU. The headers are the same strings
    (tests/deniable/test_security.py compares them with the stock middleware's)."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        global _constant_policies
        if getattr(request, "_csp_nonce", None) is not None or any(
            hasattr(response, name) for name in _PER_RESPONSE_POLICY
        ):
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:
            return response  # as django-csp: Django's debug pages keep their own
        if _constant_policies is None:
            _constant_policies = (build_policy(), build_policy(report_only=True))
        csp, csp_ro = _constant_policies
        for header, value, exempt, setting in (
            (HEADER, csp, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
            (HEADER_REPORT_ONLY, csp_ro, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
        ):
            if not value or getattr(response, exempt, False) or header in response:
                continue
            prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if not request.path_info.startswith(tuple(prefixes)):
                response[header] = value
        # As django-csp: a nonce asked for after the header is written is an error, not a
        # silently missing one.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response


class SessionLifetimeMiddleware:
    """Log a researcher out once their session is older than ``DENIABLE_SESSION_MAX_AGE_SECONDS``,
    however active it was: the sliding idle window alone would let a session live forever."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and hasattr(request, "session"):
            max_age = int(getattr(settings, "DENIABLE_SESSION_MAX_AGE_SECONDS", 8 * 3600))
            started = request.session.get(SESSION_AUTH_STARTED_KEY)
            now = time.time()
            if not isinstance(started, int | float):
                # A session from before this middleware existed: start its clock now.
                request.session[SESSION_AUTH_STARTED_KEY] = now
            elif max_age > 0 and now - started > max_age:
                logout(request)  # flushes the session; the view then sees an anonymous user
        return self.get_response(request)


@receiver(user_logged_in, dispatch_uid="deniable.security.stamp_session")
def _stamp_session(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Stamped at login (after Django rotated the session key), not at first use: ``cycle_key``
    # keeps the old session's data, so a stale stamp would otherwise survive a fresh login.
    # Only session logins: the API token exchange sends this signal too and must not start one.
    session = getattr(request, "session", None)
    if session is not None and SESSION_KEY in session:
        session[SESSION_AUTH_STARTED_KEY] = time.time()


def _cooloff_minutes() -> int:
    cooloff = getattr(settings, "AXES_COOLOFF_TIME", None)
    if not isinstance(cooloff, timedelta):  # unset, or a form this page does not describe
        return 0
    return max(1, round(cooloff.total_seconds() / 60))


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: 429 with a clear explanation; JSON for the API."""
    minutes = _cooloff_minutes()
    limit = int(getattr(settings, "AXES_FAILURE_LIMIT", 5))
    detail = f"Too many failed login attempts ({limit}) for this account. " + (
        f"Try again in {minutes} minutes." if minutes else "Ask an administrator to unlock it."
    )
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"error": ErrorCode.LOCKED_OUT, "detail": detail}, status=429
        )
    else:
        response = render(
            request,
            "registration/locked_out.html",
            {"detail": detail, "minutes": minutes, "failure_limit": limit},
            status=429,
        )
    if minutes:
        response["Retry-After"] = str(minutes * 60)
    response["Cache-Control"] = "no-store"
    return response


def axes_client_str(
    username: str, ip_address: str, user_agent: str, path_info: Any, request: HttpRequest
) -> str:
    """``AXES_CLIENT_STR_CALLABLE``: axes' log lines name the account and the path, nothing that
    identifies the machine (axes still stores researchers' IPs in its attempt table)."""
    if isinstance(path_info, tuple | list):
        path_info = path_info[0] if path_info else ""
    return f'{{username: "{username}", path_info: "{path_info}"}}'
