"""The webhook models: one delivery per batch and hook (surveys/webhooks/models.py)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from surveys.models import Webhook, WebhookDelivery
from testsupport.factories import make_survey, make_user

pytestmark = pytest.mark.django_db


def test_one_delivery_per_batch_and_hook():
    survey = make_survey(make_user("o", "o-pw-123456"))
    hook = Webhook.objects.create(survey=survey, url="https://example.org/h", secret="s" * 64)
    WebhookDelivery.objects.create(webhook=hook, respondents=10, body="{}")
    with pytest.raises(IntegrityError), transaction.atomic():
        WebhookDelivery.objects.create(webhook=hook, respondents=10, body="{}")
    WebhookDelivery.objects.create(webhook=hook, respondents=20, body="{}")
    survey.delete()  # a survey's hooks and deliveries go with it
    assert not Webhook.objects.exists() and not WebhookDelivery.objects.exists()
