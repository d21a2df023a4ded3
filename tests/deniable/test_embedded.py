"""Embedded mode's sweeps (deniable/embedded.py): once per interval, only without a broker, and
never failing a page."""

from __future__ import annotations

import pytest
from celery import current_app
from django.core.cache import cache

from deniable.embedded import embedded_sweep_due

KEY = "tests:embedded-sweep"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    cache.delete(KEY)


def test_once_per_interval_per_key() -> None:
    assert embedded_sweep_due(KEY) is True
    assert embedded_sweep_due(KEY) is False
    assert embedded_sweep_due(KEY + "-other") is True  # each sweep its own turn
    cache.delete(KEY)  # the interval has passed
    assert embedded_sweep_due(KEY) is True
    cache.delete(KEY + "-other")


def test_with_a_broker_beat_does_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    assert embedded_sweep_due(KEY) is False


def test_a_cache_outage_skips_the_sweep_and_spares_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def down(*args: object, **kwargs: object) -> bool:
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", down)
    assert embedded_sweep_due(KEY) is False
