"""Request-size cap: refuse oversized bodies before anything reads them; database outages → 503.

Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only guards ``request.body``/``POST``; DRF's parsers read
the stream directly, so the cap has to sit in front of both. Bodies are refused by their declared
``Content-Length``; a chunked body without one is bounded by the WSGI server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from deniable.errors import ErrorCode

logger = logging.getLogger(__name__)


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = int(getattr(settings, "DENIABLE_MAX_REQUEST_BYTES", 1024 * 1024))
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(
                {"error": ErrorCode.BAD_REQUEST, "detail": "Content-Length is not a number."},
                status=400,
            )
        if length > limit:
            return JsonResponse(
                {
                    "error": ErrorCode.REQUEST_TOO_LARGE,
                    "detail": f"The request body is {length} bytes; the limit is {limit}.",
                },
                status=413,
            )
        return self.get_response(request)


# Seconds a client is told to wait when the database is unreachable: a fast restart takes ~1-2 s,
# a failover longer; browsers and the respondent page retry with the same submission id.
DATABASE_RETRY_AFTER_SECONDS = 5


class DatabaseUnavailableMiddleware:
    """A database that is restarting or unreachable answers a clean 503, not a 500.

    Why: during a PostgreSQL restart every request fails with ``OperationalError`` (connection
    refused / terminated by administrator) or ``InterfaceError`` (connection already closed).
    Nothing was written — each submission is one transaction — so the request is safe to retry,
    and a 503 with ``Retry-After`` says exactly that to clients and load balancers, where a 500
    says "bug". ``CONN_HEALTH_CHECKS`` drops the dead connection at the next request, so
    recovery needs nothing else. Deadlocks and serialization failures are ``OperationalError``
    too, and are equally transient. Only the exception type is logged (no request data).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning("database unavailable (%s): answered 503", type(exception).__name__)
        response = JsonResponse(
            {
                "error": ErrorCode.UNAVAILABLE,
                "detail": "The service is briefly unavailable; try again in a few seconds.",
            },
            status=503,
        )
        response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
        return response
