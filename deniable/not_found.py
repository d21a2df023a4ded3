"""The branded 404 page under ``DEBUG`` too (issue 22 item 15).

``make run`` serves the demo with ``DEBUG`` on, and Django then answers a mistyped survey link
with its yellow debug 404, which lists every URL pattern of the site — not a page for respondents
or researchers. Django bypasses ``handler404`` whenever ``DEBUG`` is true, so this middleware uses
it anyway: a view's ``Http404`` (``process_exception``) and a URL no route matches (a 404
response with no ``resolver_match``) both get ``handler404``'s answer (the branded page, or the
API's JSON body under ``/api/``). With ``DEBUG`` off it changes nothing: Django already calls the
handler. Tracebacks for 500s under ``DEBUG`` are left as they are (a developer's tool).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404

from deniable.api_errors import page_not_found


class BrandedNotFoundMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and getattr(request, "resolver_match", None) is None
        ):
            # No route matched: Django rendered its technical 404 (the URL patterns).
            return page_not_found(request, Resolver404({"path": request.path}))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404):
            return page_not_found(request, exception)
        return None
