"""API v1 webhooks (surveys/api/webhook_views.py, DESIGN §8.6): owner only, the secret shown once,
a URL that may not be called is a 400 naming ``url``; what a collaborator, a stranger and a
staff-less anonymous client can see or change."""

from __future__ import annotations

import pytest

from surveys.models import Collaborator, Webhook, WebhookDelivery
from tests.surveys.api.support import url
from testsupport.factories import api_client, make_user

pytestmark = pytest.mark.django_db

LOCAL = "http://127.0.0.1:9/hook"


@pytest.fixture
def local(settings):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = True
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True


def test_create_shows_the_secret_once_and_lists_without_it(api, survey, local):
    r = api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json")
    assert r.status_code == 201, r.content
    created = r.json()
    assert set(created) == {"id", "url", "secret"} and created["url"] == LOCAL
    assert len(created["secret"]) == 64
    listed = api.get(url(survey, "webhooks/"))
    assert listed.status_code == 200
    (hook,) = listed.json()["results"]
    assert hook["id"] == created["id"] and hook["deliveries"] == []
    assert "secret" not in hook and created["secret"] not in listed.content.decode()


def test_delivery_history_is_listed_newest_first(api, survey, local):
    hook_id = api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json").json()["id"]
    hook = Webhook.objects.get(pk=hook_id)
    for n, status in ((10, "delivered"), (20, "failed")):
        WebhookDelivery.objects.create(webhook=hook, respondents=n, body="{}", status=status)
    (listed,) = api.get(url(survey, "webhooks/")).json()["results"]
    assert [(d["respondents"], d["status"]) for d in listed["deliveries"]] == [
        (20, "failed"),
        (10, "delivered"),
    ]
    assert "body" not in listed["deliveries"][0]


def test_delete(api, survey, local):
    hook_id = api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json").json()["id"]
    assert api.delete(url(survey, f"webhooks/{hook_id}/")).status_code == 204
    assert api.delete(url(survey, f"webhooks/{hook_id}/")).status_code == 404
    assert api.get(url(survey, "webhooks/")).json() == {"results": []}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"url": "http://127.0.0.1:9/hook"}, "https"),
        ({"url": "https://127.0.0.1/hook"}, "non-public"),
        ({"url": "https://169.254.169.254/latest/meta-data/"}, "non-public"),
        ({"url": "https://[::1]/hook"}, "non-public"),
        ({"url": "https://10.0.0.1/hook"}, "non-public"),
        ({"url": "ftp://example.org/"}, "https"),
        ({"url": ""}, ""),
        ({"url": 5}, ""),
        ({}, ""),
    ],
)
def test_refused_urls_are_a_400_naming_url(api, survey, settings, body, message):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = False
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = False
    r = api.post(url(survey, "webhooks/"), body, format="json")
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert list(errors) == ["url"] and message in " ".join(errors["url"])
    assert not Webhook.objects.exists()


def test_a_collaborator_cannot_list_create_or_delete(api, survey, local):
    hook_id = api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json").json()["id"]
    for role in ("viewer", "editor"):
        member = make_user(role, f"{role}-pw-123")
        Collaborator.objects.create(survey=survey, user=member, role=role)
        client = api_client(member)
        listed = client.get(url(survey, "webhooks/"))
        assert listed.status_code == 403 and "secret" not in listed.content.decode()
        assert (
            client.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json").status_code == 403
        )
        assert client.delete(url(survey, f"webhooks/{hook_id}/")).status_code == 403
    assert Webhook.objects.count() == 1


def test_a_stranger_and_anonymous_get_nothing(bob_api, anon, survey, local):
    for client, status in ((bob_api, 404), (anon, 401)):
        assert client.get(url(survey, "webhooks/")).status_code in (status, 403)
        r = client.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json")
        assert r.status_code in (status, 403)
    assert not Webhook.objects.exists()


def test_a_hook_of_another_survey_cannot_be_deleted_through_mine(api, alice, survey, local):
    from testsupport.factories import make_survey

    other = make_survey(alice)
    hook = Webhook.objects.create(survey=other, url=LOCAL, secret="s" * 64)
    assert api.delete(url(survey, f"webhooks/{hook.pk}/")).status_code == 404
    assert Webhook.objects.filter(pk=hook.pk).exists()


def test_at_most_ten_hooks(api, survey, local):
    for _ in range(10):
        assert api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json").status_code == 201
    r = api.post(url(survey, "webhooks/"), {"url": LOCAL}, format="json")
    assert r.status_code == 400 and "at most 10" in r.json()["errors"]["url"][0]
