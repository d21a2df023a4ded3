"""Webhooks end to end through the batch publication (surveys/webhooks/services.py): a real
local receiver gets one signed POST per published batch — never per submission — retried after
a 500; a rolled-back publication or a retrying respondent sends nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
from django.db import transaction

from audit.models import Entry
from surveys.models import Survey, WebhookDelivery
from surveys.services.batches import submissions_publish
from surveys.webhooks import services
from tests.surveys.webhooks.receiver import receiver
from testsupport.factories import make_survey, make_user, new_id, submit

pytestmark = pytest.mark.django_db(transaction=True)

BODY = {
    "title": "Hooked",
    "description": "",
    "questions": [{"key": "cheated", "text": "Did you cheat?", "kind": "yes_no"}],
}


@pytest.fixture
def hooked(settings):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True
    settings.DENIABLE_WEBHOOK_BACKOFF = 0.05
    settings.DENIABLE_ESTIMATE_BATCH = 3
    return make_survey(make_user("owner", "owner-pw-123"), BODY)


def _settled(survey: Survey, n: int, timeout: float = 20.0) -> list[WebhookDelivery]:
    """The survey's deliveries once ``n`` exist and none is pending."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = list(WebhookDelivery.objects.filter(webhook__survey=survey).order_by("id"))
        if len(rows) >= n and all(r.status != "pending" for r in rows):
            return rows
        time.sleep(0.05)
    raise AssertionError(f"deliveries did not settle: {rows}")


def _answer(i: int) -> dict:
    return {"cheated": i % 2 == 0}


def test_one_signed_post_per_published_batch_never_per_submission(hooked):
    with receiver([200]) as hook:
        created = services.webhook_create(survey=hooked, url=hook.url)
        for i in range(2):
            submit(hooked, _answer(i))
        time.sleep(0.3)
        assert hook.received == []  # two submissions, no batch yet: nothing observable
        assert not WebhookDelivery.objects.exists()
        for i in range(2, 7):  # the 3rd completes batch 1, the 6th batch 2; the 7th waits
            submit(hooked, _answer(i))
        rows = _settled(hooked, 2)
        got = hook.wait_for(2)
        time.sleep(0.3)
        assert len(hook.received) == 2
    bodies = [json.loads(r.body) for r in got]
    assert bodies == [
        {"event": "batch.published", "survey": hooked.slug, "published": 3, "respondents": 3},
        {"event": "batch.published", "survey": hooked.slug, "published": 3, "respondents": 6},
    ]
    for r in got:
        mac = hmac.new(created.secret.encode(), r.body, hashlib.sha256).hexdigest()
        assert r.headers["X-Deniable-Signature"] == f"sha256={mac}"
    assert [(d.status, d.attempts, d.response_status) for d in rows] == [("delivered", 1, 200)] * 2


def test_a_500_is_retried_with_backoff_then_delivered(hooked):
    with receiver([500, 503, 200]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        for i in range(3):
            submit(hooked, _answer(i))
        (row,) = _settled(hooked, 1)
        got = hook.wait_for(3)
    assert (row.status, row.attempts, row.response_status, row.error) == ("delivered", 3, 200, "")
    assert len({r.body for r in got}) == 1  # the same bytes, the same signature, every time
    assert len({r.headers["X-Deniable-Signature"] for r in got}) == 1


def test_it_gives_up_after_the_last_attempt(hooked, settings):
    settings.DENIABLE_WEBHOOK_MAX_ATTEMPTS = 3
    with receiver([500]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        for i in range(3):
            submit(hooked, _answer(i))
        (row,) = _settled(hooked, 1)
        assert len(hook.wait_for(3)) == 3
    assert (row.status, row.attempts, row.error) == ("failed", 3, "HTTP 500")
    assert row.finished_at is not None


def test_a_rolled_back_publication_sends_nothing(hooked):
    with receiver([200]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        with pytest.raises(RuntimeError), transaction.atomic():
            for i in range(3):
                submit(hooked, _answer(i))  # the third publishes, inside this transaction
            raise RuntimeError("the publication's transaction fails")
        time.sleep(0.5)
        assert hook.received == []
    assert not WebhookDelivery.objects.exists()


def test_a_retrying_respondent_triggers_no_delivery(hooked):
    with receiver([200]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        ids = [new_id() for _ in range(3)]
        for i, sid in enumerate(ids):
            submit(hooked, _answer(i), submission_id=sid)
        _settled(hooked, 1)
        for i, sid in enumerate(ids):  # the same submissions again: duplicates
            assert submit(hooked, _answer(i), submission_id=sid).status == "duplicate"
        time.sleep(0.5)
        assert len(hook.received) == 1
    assert WebhookDelivery.objects.count() == 1


def test_the_body_carries_nothing_per_submission(hooked):
    """Only the batch's size and the published total: no arrival time, no id, no answer."""
    with receiver([200]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        for i in range(3):
            submit(hooked, _answer(i))
        (got,) = hook.wait_for(1)
    body = json.loads(got.body)
    assert set(body) == {"event", "survey", "published", "respondents"}
    assert all(not isinstance(v, float) for v in body.values())
    assert {k.lower() for k in got.headers} & {"date", "x-deniable-time"} == set()


def test_a_second_enqueue_of_the_same_batch_is_not_sent_twice(hooked):
    with receiver([200]) as hook:
        services.webhook_create(survey=hooked, url=hook.url)
        for i in range(3):
            submit(hooked, _answer(i))
        (row,) = _settled(hooked, 1)
        services.deliveries_enqueue(delivery_ids=[row.pk])  # a redelivered task message
        assert services.delivery_attempt(delivery_id=row.pk) == "skipped"
        time.sleep(0.5)
        assert len(hook.received) == 1


def test_no_hook_no_delivery_and_no_request(hooked):
    for i in range(3):
        submit(hooked, _answer(i))
    assert submissions_publish(survey=hooked, force=True) == 0
    assert not WebhookDelivery.objects.exists()


def test_create_and_delete_are_audited(hooked):
    hook = services.webhook_create(survey=hooked, url="http://127.0.0.1:9/hook")
    services.webhook_delete(survey=hooked, webhook=hook)
    entries = list(
        Entry.objects.filter(survey_pk=hooked.pk, action__startswith="webhook.")
        .order_by("id")
        .values_list("action", "detail")
    )
    assert entries == [
        ("webhook.create", {"id": hook.pk, "url": "http://127.0.0.1:9/hook"}),
        ("webhook.delete", {"id": hook.pk, "url": "http://127.0.0.1:9/hook"}),
    ]
    assert all(hook.secret not in json.dumps(d) for _, d in entries)


def test_the_sweeper_sends_a_delivery_left_pending(hooked):
    """A broker down at publication leaves the row pending: the periodic sweeper sends it."""
    with receiver([200]) as hook:
        webhook = services.webhook_create(survey=hooked, url=hook.url)
        row = WebhookDelivery.objects.create(webhook=webhook, respondents=3, body='{"x":1}')
        assert services.deliveries_sweep(older_than=3600) == []  # not stale yet
        assert services.deliveries_sweep(older_than=-1) == [row.pk]
        (got,) = hook.wait_for(1)
        (settled,) = _settled(hooked, 1)
    assert got.body == b'{"x":1}' and settled.status == "delivered"


def test_the_celery_task_attempts_once_and_asks_for_a_retry(hooked):
    from celery.exceptions import Retry
    from celery.result import allow_join_result

    from surveys.tasks import webhook_deliver

    with receiver([500, 200]) as hook:
        webhook = services.webhook_create(survey=hooked, url=hook.url)
        row = WebhookDelivery.objects.create(webhook=webhook, respondents=3, body="{}")
        with pytest.raises(Retry):  # eager + propagate: the retry surfaces here
            webhook_deliver.apply(args=[row.pk], throw=True)
        row.refresh_from_db()
        assert (row.status, row.attempts, row.response_status) == ("pending", 1, 500)
        # An eager result never blocks, but Celery's guard reads a process-wide flag that an
        # earlier test on the same xdist worker can leave set (a worker pool built in-process sets
        # it): it once failed CI with "Never call result.get() within a task!". This test is not
        # inside a task, which is what allow_join_result says.
        with allow_join_result():
            assert webhook_deliver.apply(args=[row.pk]).get() == "delivered"
            assert webhook_deliver.apply(args=[row.pk]).get() == "skipped"  # idempotent
        assert len(hook.wait_for(2)) == 2
