"""One error shape for the whole API (docs/api.md#errors).

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

from deniable.errors import DomainError, ErrorCode

NON_FIELD = "non_field_errors"


def _join(parent: str, key: Any) -> str:
    """``questions`` + 0 → ``questions[0]``; ``budget`` + ``delta`` → ``budget.delta``; a nested
    ``non_field_errors`` (a list or object of the wrong type) names its parent."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if not parent:
        return str(key)
    return parent if key == NON_FIELD else f"{parent}.{key}"


def _flatten(detail: Any, path: str, out: dict[str, list[str]]) -> None:
    if isinstance(detail, dict):
        for key, sub in detail.items():
            _flatten(sub, _join(path, key), out)
        return
    if isinstance(detail, list) and any(isinstance(item, dict) for item in detail):
        for index, item in enumerate(detail):  # a nested ``many=True``: one entry per item
            _flatten(item if isinstance(item, dict | list) else [item], _join(path, index), out)
        return
    messages = detail if isinstance(detail, list) else [detail]
    if messages:
        known = out.setdefault(path or NON_FIELD, [])
        known.extend(m for m in dict.fromkeys(map(str, messages)) if m not in known)


def as_field_errors(detail: Any) -> dict[str, list[str]]:
    """DRF's nested error detail as the §8 shape ``{path: [messages]}``, with paths such as
    ``questions[0].design.p``, ``questions[2].options[1]`` and ``budget.delta``."""
    out: dict[str, list[str]] = {}
    _flatten(detail, "", out)
    return out or {NON_FIELD: ["Invalid input."]}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(exc.as_body(), status=exc.status_code)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"errors": as_field_errors(exc.detail)}
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
        return JsonResponse({"error": ErrorCode.NOT_FOUND, "detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
