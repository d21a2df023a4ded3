"""API v1 webhooks (docs/api.md#webhooks, DESIGN §8.6): owner only.

``POST …/webhooks/`` ``{"url"}`` → 201 ``{"id", "url", "secret"}`` (the secret shown this once);
``GET`` lists the hooks without secrets, each with its latest deliveries; ``DELETE
…/webhooks/<id>/`` → 204. A URL that may not be called (not https, or resolving to a private or
loopback address) is a 400 naming ``url``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.api import json_object_body
from deniable.errors import InvalidInput, NotFound
from deniable.input_fields import StrictCharField
from surveys import selectors
from surveys.api.views import ERROR_403, ERROR_404, ERRORS_400, SLUG
from surveys.models import Webhook, WebhookDelivery
from surveys.webhooks import services
from surveys.webhooks.addresses import RefusedURL
from surveys.webhooks.selectors import HISTORY, webhooks_with_history

WEBHOOK_ID = OpenApiParameter("webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class WebhookInSerializer(serializers.Serializer):
    url = StrictCharField(max_length=2000, help_text="An https URL on a public address.")


class WebhookCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    secret = serializers.CharField(help_text="Shown once: the HMAC-SHA256 key of the signature.")


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "respondents",
            "status",
            "attempts",
            "response_status",
            "error",
            "created_at",
            "finished_at",
        ]


class WebhookOutSerializer(serializers.ModelSerializer):
    deliveries = serializers.SerializerMethodField()

    class Meta:
        model = Webhook
        fields = ["id", "url", "created_at", "deliveries"]

    @extend_schema_field(DeliverySerializer(many=True))
    def get_deliveries(self, hook: Webhook) -> list[dict[str, Any]]:
        return list(DeliverySerializer(hook.latest, many=True).data)  # type: ignore[attr-defined]


class WebhookListSerializer(serializers.Serializer):
    results = WebhookOutSerializer(many=True)


class WebhooksView(APIView):
    @extend_schema(
        parameters=[SLUG],
        responses={200: WebhookListSerializer, 403: ERROR_403, 404: ERROR_404},
        tags=["webhooks"],
        description="Owner only. The survey's hooks (no secrets), each with its latest "
        f"{HISTORY} deliveries, newest first.",
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        hooks = webhooks_with_history(survey=survey)
        return Response({"results": WebhookOutSerializer(hooks, many=True).data})

    @extend_schema(
        parameters=[SLUG],
        request=WebhookInSerializer,
        responses={
            201: WebhookCreatedSerializer,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
        },
        tags=["webhooks"],
        description="Owner only. A hook POSTed on each published batch (never per submission),"
        " signed with X-Deniable-Signature: sha256=<hex HMAC-SHA256 of the raw body>. The"
        " secret is in this answer only. A URL that is not https or resolves to a private,"
        " loopback or other non-public address is a 400 naming url.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        incoming = WebhookInSerializer(data=json_object_body(request))
        if not incoming.is_valid():
            raise InvalidInput({k: [str(m) for m in v] for k, v in incoming.errors.items()})
        if Webhook.objects.filter(survey=survey).count() >= services.MAX_HOOKS:
            raise InvalidInput.single("url", f"A survey has at most {services.MAX_HOOKS} hooks.")
        try:
            hook = services.webhook_create(survey=survey, url=incoming.validated_data["url"])
        except RefusedURL as exc:
            raise InvalidInput.single("url", str(exc)) from exc
        return Response({"id": hook.pk, "url": hook.url, "secret": hook.secret}, status=201)


class WebhookDetailView(APIView):
    @extend_schema(
        parameters=[SLUG, WEBHOOK_ID],
        request=None,
        responses={204: None, 403: ERROR_403, 404: ERROR_404},
        tags=["webhooks"],
        description="Owner only. Delete the hook and its delivery history.",
    )
    def delete(self, request: Request, slug: str, webhook_id: int) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        hook = Webhook.objects.filter(survey=survey, pk=webhook_id).first()
        if hook is None:
            raise NotFound("No such webhook.")
        services.webhook_delete(survey=survey, webhook=hook)
        return Response(status=204)
