"""The second factor's gate: a session past the password but not past the code reaches only
the code page, the set-up page (when it must set one up), the logout and the respondent paths
(which need no account). Every other page redirects there; every other API call is a 401
``otp_required``. This covers every way a session can be made with a password alone: the login
page, the admin's login, a password reset that logs in (docs/accounts.md#two-factor).

A request with ``Authorization: Token …`` is left to the token's authentication, which refuses
(401 ``otp_required``) a token not issued past the second factor the account needs at the time
of the request: accounts.two_factor.token_refusal, from accounts.services.api_token_authenticate
(tests/accounts/test_token_second_factor.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve
from django.utils.http import urlencode

from accounts import two_factor as tf
from deniable.errors import ErrorCode
from deniable.users import signed_in

#: Routes a half-logged-in session may use: the two-factor pages, logging out, and the paths of
#: respondents and of the health check (no account needed).
OPEN_ROUTES = frozenset(
    {
        "two-factor",
        "two-factor-verify",
        "logout",
        "home",
        "healthz",
        "respond",
        "respond-submit",
        "respond-thanks",
        "respond-worker",
        "respond-manifest",
        "api-survey-responses",
        "api-survey-invitations-check",
    }
)


def _route(request: HttpRequest) -> str:
    try:
        return resolve(request.path_info).url_name or ""
    except Resolver404:
        return ""


class TwoFactorGateMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        blocked = self._blocked(request)
        return blocked if blocked is not None else self.get_response(request)

    def _blocked(self, request: HttpRequest) -> HttpResponse | None:
        user = signed_in(request.user)
        if user is None or tf.session_verified(request):
            return None
        if request.path.startswith(settings.STATIC_URL or "/static/"):
            return None
        if request.path.startswith("/api/") and request.headers.get("Authorization", "").startswith(
            "Token "
        ):
            return None
        if not tf.needs_code(user):
            return None
        route = _route(request)
        if route in OPEN_ROUTES:
            return None
        if request.path.startswith("/api/"):
            return JsonResponse(
                {
                    "error": ErrorCode.OTP_REQUIRED,
                    "detail": "Enter your two-factor code on the site.",
                },
                status=401,
            )
        target = "two-factor-verify" if tf.enrolled(user) else "two-factor"
        response = redirect(target)
        response["Location"] += "?" + urlencode({"next": request.get_full_path()})
        return response
