"""One content negotiation for every API view that has a CSV form (surveys and releases).

``?format=csv`` and ``Accept: text/csv`` choose CSV, ``?format=json`` and ``Accept:
application/json`` JSON; an ``Accept`` nothing matches falls back to the view's first renderer; an
unknown ``?format=`` is a 400 naming ``format``. Errors are always JSON, even when CSV was asked
for, so a client parses one error shape whatever it requested.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.errors import InvalidInput
from deniable.renderers import CSVRenderer, FiniteJSONRenderer

FORMATS = ("json", "csv")


def _json() -> tuple[BaseRenderer, str]:
    return FiniteJSONRenderer(), FiniteJSONRenderer.media_type


# The type checker sees the mixin as the APIView it is mixed into (so ``super()`` and
# ``self.request`` are typed); at run time it stays a plain mixin before ``APIView`` in the MRO.
if TYPE_CHECKING:
    _ViewBase = APIView
else:
    _ViewBase = object


class FormatNegotiationMixin(_ViewBase):
    """Mix into an ``APIView`` before it: ``renderer_classes`` JSON then CSV (reorder in the
    view to make CSV the default), and :meth:`negotiated_format` in the handler."""

    renderer_classes: Sequence[type[BaseRenderer]] = [FiniteJSONRenderer, CSVRenderer]
    #: The ``?format=`` values the 400 lists (a view with more renderers names them all).
    format_names: Sequence[str] = FORMATS
    format_error = False

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        try:
            return super().perform_content_negotiation(request, force)
        except Http404:  # DRF's answer to an unknown ?format=
            if force:
                raise
            self.format_error = True  # raised as a 400 by negotiated_format, rendered as JSON
            return _json()
        except NotAcceptable:
            return _json()

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        self.request.accepted_renderer, self.request.accepted_media_type = _json()
        return response

    def negotiated_format(self, request: Request) -> str:
        """``"json"`` or ``"csv"`` (or another of ``format_names``); an unknown ``?format=`` →
        InvalidInput naming ``format``."""
        if self.format_error:
            raise InvalidInput.single("format", f"One of: {', '.join(self.format_names)}.")
        return str(request.accepted_renderer.format)


def wants_download(request: Request) -> bool:
    """``?download=1`` asks for a JSON body as a file (Content-Disposition: attachment); the
    body itself is unchanged, so API clients see exactly the same response."""
    return request.query_params.get("download", "").lower() in ("1", "true", "yes")


def attachment(response: Response, filename: str) -> Response:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
