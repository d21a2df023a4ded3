"""The respondent submission's own, shorter middleware chain (issue 24, goal 1).

``POST /api/v1/surveys/<slug>/responses/`` is the product's hot path, and it is anonymous by
design: its view has no authentication, is CSRF-exempt, and reads nothing of the sender but the
body and the peer address (``surveys.api.views.ResponseCreateView``). Half the middlewares of
``settings.MIDDLEWARE`` exist for researchers — the session, the signed-in user, two-factor, the
audit actor, the session's lifetime, flash messages, login lockouts — and cost ≈ a quarter of a
submission's CPU. :class:`RespondentApiLaneMiddleware` sits right after the middlewares every
response needs (``SecurityMiddleware``, the request-size cap, WhiteNoise, our security headers)
and sends these posts through ``settings.DENIABLE_RESPONDENT_API_MIDDLEWARE`` instead of the rest
of the stack: a sub-list of ``MIDDLEWARE``, in the same order, each middleware the same class with
the same hooks (``process_view``, ``process_exception``, ``process_template_response``) and the
view called by Django's own ``BaseHandler._get_response``.

Why each one left out is irrelevant there is :data:`SKIPPED` (a test holds the two lists to
``MIDDLEWARE``, so a new middleware needs a decision). Skipping the session also means that a
respondent's post carrying a researcher's session cookie no longer loads and re-saves that
session (``SESSION_SAVE_EVERY_REQUEST``): the post never touches a session, as intended.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponse
from django.urls import (
    URLPattern,
    URLResolver,
    get_resolver,
    get_script_prefix,
    reverse,
)
from django.urls.exceptions import Resolver404
from django.urls.resolvers import RegexPattern, ResolverMatch, RoutePattern
from django.utils.module_loading import import_string

# The respondent's JSON submission only (its route's name). Other methods (OPTIONS) and every other
# path take the whole stack.
LANE_ROUTE = "api-survey-responses"

# Middlewares of ``settings.MIDDLEWARE`` below this one that the lane leaves out, and why.
SKIPPED: dict[str, str] = {
    "django.contrib.sessions.middleware.SessionMiddleware": (
        "the view reads no session and must set no cookie (respondents are never linked by one)"
    ),
    "django.middleware.csrf.CsrfViewMiddleware": (
        "the view is CSRF-exempt (APIView.as_view) and never calls get_token: no check, no cookie"
    ),
    "django.contrib.auth.middleware.AuthenticationMiddleware": (
        "the view has no authentication classes and never reads request.user"
    ),
    "accounts.sessions.SessionGuardMiddleware": (
        "ends signed-out researcher sessions; it skips respondent paths itself and reads no session"
    ),
    "django_otp.middleware.OTPMiddleware": "only decorates request.user, which nothing reads",
    "accounts.two_factor_gate.TwoFactorGateMiddleware": (
        "api-survey-responses is in its OPEN_ROUTES: it always lets these posts through"
    ),
    "audit.context.AuditContextMiddleware": (
        "names the actor of audit events; a submission and its batch publication write none"
    ),
    "deniable.security.SessionLifetimeMiddleware": "acts on signed-in sessions only",
    "django.contrib.messages.middleware.MessageMiddleware": (
        "flash messages for pages; the view adds none, so it would set no cookie"
    ),
    "axes.middleware.AxesMiddleware": "answers login lockouts, which only the login views flag",
}


def _route_path(slug: str) -> str:
    """The route's path for ``slug`` as the resolver sees it: without the script prefix or the
    leading slash."""
    return reverse(LANE_ROUTE, kwargs={"slug": slug}).removeprefix(get_script_prefix())


def lane_path() -> re.Pattern[str]:
    """The route's path with any slug, from the URLconf (no path is written by hand)."""
    marker = "SLUG0MARKER"
    return re.compile("^/" + re.escape(_route_path(marker)).replace(marker, "[^/]+") + "$")


def lane_wanted(request: HttpRequest, path: re.Pattern[str]) -> bool:
    return request.method == "POST" and path.match(request.path_info) is not None


def lane_resolver() -> URLResolver:
    """A root resolver holding only the lane's route, as the URLconf spells it (the same route,
    view and name). Django's resolver tries the URLconf's patterns in order, and the responses
    route comes after the accounts API's and most of the surveys API's: ≈ 8 % of a submission's
    CPU under load went to that walk (py-spy, bench/RESULTS.md §10, round 10)."""
    match = get_resolver().resolve("/" + _route_path("slug"))
    route = URLPattern(RoutePattern(match.route, name=LANE_ROUTE, is_endpoint=True), match.func,
                       name=LANE_ROUTE)  # fmt: skip
    return URLResolver(RegexPattern(r"^/"), [route])


class _LaneHandler(BaseHandler):
    """Django's handler, resolving through :func:`lane_resolver`. A path the lane's pattern
    takes but the route's converters refuse goes to the whole URLconf, as before."""

    def __init__(self) -> None:
        super().__init__()
        self.resolver = lane_resolver()

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        try:
            match = self.resolver.resolve(request.path_info)
        except Resolver404:
            return super().resolve_request(request)
        request.resolver_match = match
        return match


def _lean_chain(paths: list[str]) -> Callable[[HttpRequest], Any]:
    """What ``BaseHandler.load_middleware`` builds, for ``paths`` (synchronous middlewares)."""
    # Django's own resolve → process_view → view → process_exception → render, fed the hooks of
    # these middlewares only (the handler's private lists, which its stubs do not declare).
    inner: Any = _LaneHandler()
    inner._view_middleware = []
    inner._template_response_middleware = []
    inner._exception_middleware = []
    handler = convert_exception_to_response(inner._get_response)
    for path in reversed(paths):
        middleware = import_string(path)(handler)
        if hasattr(middleware, "process_view"):
            inner._view_middleware.insert(0, middleware.process_view)
        if hasattr(middleware, "process_template_response"):
            inner._template_response_middleware.append(middleware.process_template_response)
        if hasattr(middleware, "process_exception"):
            inner._exception_middleware.append(middleware.process_exception)
        handler = convert_exception_to_response(middleware)
    return handler


class RespondentApiLaneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.lane = _lean_chain(list(settings.DENIABLE_RESPONDENT_API_MIDDLEWARE))
        self.path = lane_path()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if lane_wanted(request, self.path):
            response: HttpResponse = self.lane(request)
            return response
        return self.get_response(request)
