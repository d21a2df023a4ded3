"""Every Celery task's time limits are ones Celery accepts (issue 21, item 10): a task that set
``time_limit=60`` alone inherited the global soft limit (240 s), so Celery refused to send it and
beat never ran the release sweeper."""

from __future__ import annotations

import pytest

from deniable.celery import app

OUR_APPS = ("privacy.", "surveys.", "accounts.", "deniable.")


def test_every_task_has_a_soft_limit_below_its_hard_one() -> None:
    app.loader.import_default_modules()
    ours = {name: task for name, task in app.tasks.items() if name.startswith(OUR_APPS)}
    assert "privacy.tasks.releases_sweep" in ours and "privacy.tasks.release_compute" in ours
    for name, task in ours.items():
        soft = task.soft_time_limit or app.conf.task_soft_time_limit
        hard = task.time_limit or app.conf.task_time_limit
        assert soft and hard and soft < hard, (name, soft, hard)


@pytest.mark.django_db
def test_the_sweeper_can_be_sent() -> None:
    """What beat does: ``apply_async`` checks the limits before anything reaches the broker (the
    test settings run it eagerly, so it also runs here: nothing is stale)."""
    task = app.tasks["privacy.tasks.releases_sweep"]
    task.apply_async()
