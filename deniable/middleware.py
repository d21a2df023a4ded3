"""Request-size cap: refuse oversized bodies before anything reads them.

Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only guards ``request.body``/``POST``; DRF's parsers read
the stream directly, so the cap has to sit in front of both. Bodies are refused by their declared
``Content-Length``; a chunked body without one is bounded by the WSGI server.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = int(getattr(settings, "DENIABLE_MAX_REQUEST_BYTES", 1024 * 1024))
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(
                {"error": "bad_request", "detail": "Content-Length is not a number."}, status=400
            )
        if length > limit:
            return JsonResponse(
                {
                    "error": "request_too_large",
                    "detail": f"The request body is {length} bytes; the limit is {limit}.",
                },
                status=413,
            )
        return self.get_response(request)
