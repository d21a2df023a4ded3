"""The API's two error bodies as serializers, for the OpenAPI document of every app
(docs/api.md#errors): one component each, whichever app documents a response with them."""

from __future__ import annotations

from rest_framework import serializers


class FieldErrorsSerializer(serializers.Serializer):
    # The API's field is named "errors" (docs/api.md#errors). DRF's metaclass moves declared
    # fields out of the class, so Serializer.errors is untouched; the stubs cannot know that.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Messages per field, e.g. {"answers.q1": ["Must be a boolean …"]}.',
    )


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="A machine-readable code, e.g. survey_closed.")
    detail = serializers.CharField()
