"""The beat heartbeat (deniable/beat.py): touched on every scheduler tick, checked by its age."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery.beat import PersistentScheduler, SchedulingError

from deniable import beat
from deniable.celery import app

ROOT = Path(__file__).resolve().parents[1]


def test_a_fresh_heartbeat_is_alive_and_an_old_or_missing_one_is_not(tmp_path):
    path = tmp_path / "heartbeat"
    assert beat.heartbeat_age(path) is None
    assert not beat.is_alive(path, max_age=180)
    beat.touch_heartbeat(path)
    assert beat.is_alive(path, max_age=180)
    old = time.time() - 181
    os.utime(path, (old, old))
    assert not beat.is_alive(path, max_age=180)
    assert 180 < beat.heartbeat_age(path) < 200


def test_every_tick_touches_the_heartbeat(tmp_path, monkeypatch):
    path = tmp_path / "heartbeat"
    monkeypatch.setenv("DENIABLE_BEAT_HEARTBEAT", str(path))
    # The base scheduler's tick is not under test here: only that ours beats after it.
    monkeypatch.setattr(PersistentScheduler, "tick", lambda self, *a, **k: 7.0)
    scheduler = beat.HeartbeatScheduler.__new__(beat.HeartbeatScheduler)
    assert scheduler.tick() == 7.0
    assert beat.is_alive(path, max_age=5)


def test_the_scheduler_runs_the_real_schedule_and_beats(tmp_path, monkeypatch):
    path = tmp_path / "heartbeat"
    monkeypatch.setenv("DENIABLE_BEAT_HEARTBEAT", str(path))
    scheduler = beat.HeartbeatScheduler(
        app=app, schedule_filename=str(tmp_path / "schedule"), lazy=True
    )
    monkeypatch.setattr(scheduler, "apply_async", lambda *a, **k: None)  # no broker here
    scheduler.setup_schedule()
    assert "privacy-releases-sweep" in scheduler.schedule
    assert 0 <= scheduler.tick() <= 60
    assert beat.is_alive(path, max_age=5)
    scheduler.close()


def test_the_health_check_command_exit_status(tmp_path):
    path = tmp_path / "heartbeat"
    env = {**os.environ, "DENIABLE_BEAT_HEARTBEAT": str(path), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "deniable.beat"]
    missing = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "missing" in missing.stderr
    beat.touch_heartbeat(path)
    assert subprocess.run(command, env=env, timeout=60).returncode == 0


def test_a_scheduled_task_that_cannot_be_applied_fails_the_health_check(tmp_path, monkeypatch):
    """Issue 21, item 10: beat kept ticking (fresh heartbeat) while every send of the sweeper
    failed; now the failure is recorded and the check fails until that entry is sent again."""
    path = tmp_path / "heartbeat"
    monkeypatch.setenv("DENIABLE_BEAT_HEARTBEAT", str(path))
    scheduler = beat.HeartbeatScheduler(
        app=app, schedule_filename=str(tmp_path / "schedule"), lazy=True
    )
    scheduler.setup_schedule()
    entry = scheduler.schedule["privacy-releases-sweep"]
    task = app.tasks["privacy.tasks.releases_sweep"]

    def refuse(*args, **kwargs):  # what Celery raised for soft_time_limit > time_limit
        raise ValueError("soft_time_limit must be less than or equal to time_limit")

    monkeypatch.setattr(task, "apply_async", refuse)
    with pytest.raises(SchedulingError):
        scheduler.apply_async(entry, advance=False)
    beat.touch_heartbeat(path)
    assert "soft_time_limit" in beat.apply_failures(path)["privacy-releases-sweep"]
    assert beat.main() == 1
    monkeypatch.setattr(task, "apply_async", lambda *a, **k: None)
    scheduler.apply_async(entry, advance=False)
    assert beat.apply_failures(path) == {}
    assert beat.main() == 0
    scheduler.close()
