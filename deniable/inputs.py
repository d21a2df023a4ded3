"""Running an input serializer outside DRF's request cycle: the one door for every caller.

The API views, the server-rendered pages, management commands and tests validate a request body
with the same serializer; a refusal is :class:`deniable.errors.InvalidInput` with the §8 field
paths (``questions[0].design.p``), which the API renders as ``{"errors": …}`` and the pages
attach to their form fields.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from rest_framework import serializers
from rest_framework.utils.serializer_helpers import BindingDict

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


_THREAD = threading.local()

# The type checker sees the mixin as the Serializer it is mixed into (BindingDict and a field's
# parent take a serializer); at run time it stays a plain mixin before it in the MRO.
if TYPE_CHECKING:
    _SerializerBase = serializers.Serializer
else:
    _SerializerBase = object


class ThreadFieldsMixin(_SerializerBase):
    """For a serializer on a hot path (a respondent's submission): its fields are deep-copied
    once per thread and class instead of once per instance — DRF's per-instance copy was ~60 %
    of validating a submission. Each instance re-points the fields' ``parent`` at itself (all a
    field reads through it is the root's ``partial`` and ``context``), so within a thread every
    instance validates with its own context, one at a time. Only for serializers whose fields
    keep no per-request state: plain fields, no nested serializers."""

    @cached_property
    def fields(self) -> BindingDict:
        cache = _THREAD.__dict__.setdefault("fields", {})
        bound: BindingDict | None = cache.get(type(self))
        if bound is None:
            bound = BindingDict(self)
            for name, field in self.get_fields().items():
                bound[name] = field
            cache[type(self)] = bound
            return bound
        bound.serializer = self
        for field in bound.values():
            field.parent = self
        return bound
