"""Small API building blocks shared by the surveys and privacy endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError

# drf-stubs 3.18.1 lacks ``get_encoding`` (a module-level helper DRF 3.18 has): the stub is wrong.
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]
from rest_framework.request import Request

from deniable import json_input
from deniable.errors import InvalidInput


class CheckedJSONParser(JSONParser):
    """DRF's JSON parser, made total: a body nested too deep, holding NUL or a lone surrogate, in
    an unknown charset or not decodable in its charset is a 400, never a 500
    (:mod:`deniable.json_input`)."""

    strict = True

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = get_encoding(parser_context or {})  # DRF's: text codecs only, else a 400
        try:
            text = (stream.read() if stream is not None else b"").decode(encoding)
        except (LookupError, UnicodeError):
            raise ParseError(f"The body is not valid {encoding} text.") from None
        try:
            return json_input.loads(text, strict=self.strict)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


def json_object_body(request: Request) -> Mapping[str, Any]:
    """The parsed body, which must be a JSON object (a list or a scalar is a 400)."""
    if not isinstance(request.data, Mapping):
        raise InvalidInput.single("non_field_errors", "The body must be a JSON object.")
    return request.data
