"""Sending one webhook POST (surveys/webhooks/delivery.py) to a real local receiver: the body
as given, the signature over its raw bytes, no redirect followed, a timeout, the SSRF check at
send time."""

from __future__ import annotations

import hashlib
import hmac
import socket
import threading
import time

import pytest

from surveys.webhooks import delivery
from tests.surveys.webhooks.receiver import receiver

BODY = b'{"event":"batch.published","survey":"s","published":5,"respondents":10}'


@pytest.fixture
def allow_local(settings):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = True
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True


def test_signature_is_the_hex_hmac_sha256_of_the_raw_body():
    expected = hmac.new(b"k" * 64, BODY, hashlib.sha256).hexdigest()
    assert delivery.signature("k" * 64, BODY) == f"sha256={expected}"
    assert delivery.signature("other", BODY) != delivery.signature("k" * 64, BODY)


def test_the_receiver_gets_the_body_and_a_signature_it_can_check(allow_local):
    with receiver([204]) as hook:
        answer = delivery.send(hook.url, "secret", BODY)
        (got,) = hook.wait_for(1)
    assert answer.delivered and answer.status == 204 and answer.error == ""
    assert got.path == "/hook" and got.body == BODY
    assert got.headers["Content-Type"] == "application/json"
    mac = hmac.new(b"secret", got.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(got.headers["X-Deniable-Signature"], f"sha256={mac}")


def test_an_error_status_is_not_delivered(allow_local):
    with receiver([500]) as hook:
        answer = delivery.send(hook.url, "secret", BODY)
    assert not answer.delivered and answer.status == 500 and answer.error == "HTTP 500"


def test_a_redirect_is_not_followed(allow_local):
    with receiver([200]) as target, receiver([302], redirect_to=target.url) as hook:
        answer = delivery.send(hook.url, "secret", BODY)
        assert len(hook.wait_for(1)) == 1
        time.sleep(0.2)
        assert target.received == []  # the Location was never requested
    assert answer.status == 302 and not answer.delivered


def test_a_silent_receiver_times_out(allow_local, monkeypatch):
    monkeypatch.setattr(delivery, "TIMEOUT", 0.5)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(server.accept()[0]), daemon=True).start()
    start = time.monotonic()
    answer = delivery.send(f"http://127.0.0.1:{server.getsockname()[1]}/", "s", BODY)
    assert time.monotonic() - start < 3
    assert answer.status is None and "timed out" in answer.error.lower()
    server.close()


def test_a_loopback_url_is_refused_at_send_time_without_the_setting(settings):
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = False
    with receiver([200]) as hook:
        answer = delivery.send(hook.url, "secret", BODY)
        time.sleep(0.2)
        assert hook.received == []
    assert answer.status is None and answer.error.startswith("refused:")
