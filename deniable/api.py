"""Small API building blocks shared by the surveys and privacy endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from deniable.errors import InvalidInput


class CSVRenderer(BaseRenderer):
    """Lets ``?format=csv`` through content negotiation; the views build the CSV text."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        return data if isinstance(data, str | bytes) else str(data)


def json_object_body(request: Request) -> Mapping[str, Any]:
    """The parsed body, which must be a JSON object (a list or a scalar is a 400)."""
    if not isinstance(request.data, Mapping):
        raise InvalidInput.single("non_field_errors", "The body must be a JSON object.")
    return request.data
