"""Strict DRF fields for request bodies: JSON types as sent, never coerced.

DRF's own fields coerce: ``FloatField`` takes ``"1"`` and ``True``, ``IntegerField`` takes
``"2"`` and ``2.0``, ``CharField`` takes ``5``. The API never did (a survey's ``budget.epsilon``
of ``"1"`` was always a 400), so these fields take the JSON type only. Their ranges, lengths and
patterns are the ordinary DRF arguments, so the OpenAPI document (drf-spectacular) states them;
an *exclusive* bound (ε > 0) is added to the schema by :class:`StrictFloatFieldExtension`.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from deniable.json_input import string_problem


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """A JSON number that is a finite float: not NaN/±∞, and not an int too large for a float
    (``math.isfinite(10**400)`` raises OverflowError)."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


class StrictFloatField(serializers.FloatField):
    """A JSON number that is a finite float (not a string, not a bool, not 10**400).

    ``exclusive_min`` / ``exclusive_max``: strict bounds (ε > 0, confidence < 1), stated in the
    schema as ``exclusiveMinimum`` / ``exclusiveMaximum``.
    """

    default_error_messages = {
        "invalid": "A finite number is required.",
        "exclusive_min": "Must be greater than {exclusive_min:g}.",
        "exclusive_max": "Must be less than {exclusive_max:g}.",
    }

    def __init__(
        self,
        *,
        exclusive_min: float | None = None,
        exclusive_max: float | None = None,
        **kwargs: Any,
    ) -> None:
        self.exclusive_min = exclusive_min
        self.exclusive_max = exclusive_max
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> float:
        if not _is_number(data):
            self.fail("invalid")
        try:
            value = float(data)
        except OverflowError:
            self.fail("invalid")
        if not math.isfinite(value):
            self.fail("invalid")
        if self.exclusive_min is not None and not value > self.exclusive_min:
            self.fail("exclusive_min", exclusive_min=self.exclusive_min)
        if self.exclusive_max is not None and not value < self.exclusive_max:
            self.fail("exclusive_max", exclusive_max=self.exclusive_max)
        return value


class StrictFloatFieldExtension(OpenApiSerializerFieldExtension):
    """The schema of a :class:`StrictFloatField`: DRF's, plus its exclusive bounds (OpenAPI 3.0:
    ``minimum`` with ``exclusiveMinimum: true``)."""

    target_class = StrictFloatField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if self.target.exclusive_min is not None and "minimum" not in schema:
            schema["minimum"] = self.target.exclusive_min
            schema["exclusiveMinimum"] = True
        if self.target.exclusive_max is not None and "maximum" not in schema:
            schema["maximum"] = self.target.exclusive_max
            schema["exclusiveMaximum"] = True
        return schema


class StrictIntegerField(serializers.IntegerField):
    """A JSON whole number (not ``"2"``, ``2.5``, ``2.0`` or ``true``)."""

    default_error_messages = {"invalid": "A whole number is required."}

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF's BooleanField also takes "yes", 1, "on" …)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("Must be true or false.")
        return data


class StrictCharField(serializers.CharField):
    """A JSON string that a database can store (no NUL, no lone surrogate); ``blank`` and
    ``required`` read alike ("This field is required.")."""

    default_error_messages = {
        "invalid": "Must be a string.",
        "blank": "This field is required.",
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        problem = string_problem(data)
        if problem:
            raise serializers.ValidationError(problem)
        return super().to_internal_value(data)


class UUID4Field(serializers.UUIDField):
    """A random (version 4, RFC 4122) UUID, as a string or a ``uuid.UUID``."""

    default_error_messages = {
        "invalid": "Must be a UUID (version 4).",
        "not_random": "Must be a random UUID (version 4).",
    }

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if isinstance(data, uuid.UUID):
            value = data
        elif isinstance(data, str):
            try:
                value = uuid.UUID(data)
            except ValueError:
                self.fail("invalid")
        else:
            self.fail("invalid")
        if value.version != 4 or value.variant != uuid.RFC_4122:
            self.fail("not_random")
        return value


class UTCDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date-time, made aware (UTC when naive) and representable in UTC.

    ``parse_datetime`` raises ValueError for a well-formed but impossible date ("2024-13-45"),
    and "9999-12-31T23:59:59-23:59" parses but is past year 9999 in UTC (OverflowError on
    conversion, save or comparison): both were 500s. Either is a 400 naming the field.
    """

    default_error_messages = {
        "invalid": "An ISO 8601 date-time is required.",
        "range": "Must be a date-time between years 1 and 9999 in UTC.",
    }

    def to_internal_value(self, value: Any) -> datetime:
        parsed = value
        if isinstance(value, str):
            try:
                parsed = parse_datetime(value) if len(value) <= 64 else None
            except ValueError:
                parsed = None
        if not isinstance(parsed, datetime):
            self.fail("invalid")
        try:
            if timezone.is_naive(parsed):
                parsed = timezone.make_aware(parsed, UTC)
            return parsed.astimezone(UTC)
        except (OverflowError, ValueError):
            self.fail("range")


class BoundedListSerializer(serializers.ListSerializer):
    """``many=True`` with ``min_length``/``max_length`` (DRF checks them); set it as a nested
    serializer's ``Meta.list_serializer_class`` so the schema states them as well."""


class BoundedListSerializerExtension(OpenApiSerializerFieldExtension):
    """The schema of a :class:`BoundedListSerializer`: an array with ``minItems``/``maxItems``."""

    target_class = BoundedListSerializer
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if self.target.min_length is not None:
            schema["minItems"] = self.target.min_length
        if self.target.max_length is not None:
            schema["maxItems"] = self.target.max_length
        return schema
