"""Running an input serializer outside DRF's request cycle: the one door for every caller.

The API views, the server-rendered pages, management commands and tests validate a request body
with the same serializer; a refusal is :class:`deniable.errors.InvalidInput` with the §8 field
paths (``questions[0].design.p``), which the API renders as ``{"errors": …}`` and the pages
attach to their form fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from rest_framework import serializers

from deniable.api_errors import as_field_errors
from deniable.errors import InvalidInput

T = TypeVar("T")


def validate_input(
    serializer_class: type[serializers.Serializer], data: Any, expected: type[T], **context: Any
) -> T:
    """Validate ``data``; return the serializer's frozen spec (an instance of ``expected``).

    Raises :class:`InvalidInput` naming every bad field; a body that is not an object is a
    ``non_field_errors`` refusal, as the API's parser gives.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput.single("non_field_errors", "The body must be a JSON object.")
    serializer = serializer_class(data=data, context=context)
    if not serializer.is_valid():
        raise InvalidInput(as_field_errors(serializer.errors))
    spec = serializer.validated_data
    if not isinstance(spec, expected):  # pragma: no cover — a serializer without its validate()
        raise TypeError(f"{serializer_class.__name__} gave {type(spec).__name__}")
    return spec
