from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_healthz_reports_every_dependency(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"] == {"database": "ok", "cache": "ok", "broker": "eager"}


@pytest.mark.django_db
def test_healthz_degrades_when_the_broker_is_unreachable(client, settings):
    from deniable.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:9/0"
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "error"


@pytest.mark.django_db
def test_healthz_sees_a_real_broker(client, settings, require_redis):
    from deniable.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.broker_url
    app.conf.broker_url = require_redis
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous
    assert response.json()["checks"]["broker"] == "ok"
