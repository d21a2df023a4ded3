"""The request being served, so a service's audit entry knows who acted without an argument.

:class:`AuditContextMiddleware` keeps the request in a context variable for the length of the
view. The user is read when an entry is written, not when the request arrives: DRF authenticates
a token inside the view and sets ``request.user`` on the underlying request then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.http import HttpRequest, HttpResponse

_request: ContextVar[HttpRequest | None] = ContextVar("audit_request", default=None)


def current_user() -> Any:
    """The current request's user (signed in or anonymous), or None outside a request."""
    request = _request.get()
    return getattr(request, "user", None) if request is not None else None


class AuditContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _request.set(request)
        try:
            return self.get_response(request)
        finally:
            _request.reset(token)


@contextmanager
def as_system() -> Iterator[None]:
    """Entries written inside are the system's (no actor), even during a request: for work a
    request merely triggers, such as closing other researchers' surveys at their closing time
    (``surveys.services.closing``), which must not be recorded as that request's user's act."""
    token = _request.set(None)
    try:
        yield
    finally:
        _request.reset(token)
