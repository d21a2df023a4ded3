"""One error shape for the whole API (DESIGN.md §8).

Validation and parse errors (every 400): ``{"errors": {field: [messages]}}``; everything else:
``{"error": code, "detail": text}``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from deniable.errors import DomainError


def _as_field_errors(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for field, messages in detail.items():
            if isinstance(messages, dict):
                for sub, sub_messages in _as_field_errors(messages).items():
                    out[f"{field}.{sub}"] = sub_messages
            elif isinstance(messages, list):
                flat: list[str] = []
                for index, message in enumerate(messages):
                    if isinstance(message, dict):
                        for sub, sub_messages in _as_field_errors(message).items():
                            out[f"{field}[{index}].{sub}"] = sub_messages
                    else:
                        flat.append(str(message))
                if flat:
                    out[str(field)] = flat
            else:
                out[str(field)] = [str(messages)]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(m) for m in detail]}
    return {"non_field_errors": [str(detail)]}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(exc.as_body(), status=exc.status_code)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"errors": _as_field_errors(exc.detail)}
    elif isinstance(exc, exceptions.ParseError):
        # A body that is not JSON is bad input like any other: every 400 has the errors shape.
        response.data = {"errors": {"non_field_errors": [str(exc.detail)]}}
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(exc, "default_code", "error")
        if isinstance(exc, exceptions.APIException) and hasattr(exc, "get_codes"):
            codes = exc.get_codes()
            code = codes if isinstance(codes, str) else code
        response.data = {"error": code, "detail": str(detail)}
    return response


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: a JSON error body under ``/api/`` (a URL no route matches, e.g. a slug
    with characters a slug cannot have), Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
