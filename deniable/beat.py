"""Celery beat with a heartbeat file, for the container health check (docker-compose ``beat``).

Beat runs no server to ask, so liveness is a file: :class:`HeartbeatScheduler` touches
``DENIABLE_BEAT_HEARTBEAT`` on every scheduler tick (at least once a minute, the shortest entry in
``CELERY_BEAT_SCHEDULE``), and ``python -m deniable.beat`` exits non-zero when that file is older
than ``DENIABLE_BEAT_HEARTBEAT_MAX_AGE`` seconds (default 180) or missing. A hung or dead beat
stops ticking, so its heartbeat ages and the check fails.

A beat that ticks but cannot *send* a scheduled task is just as useless (issue 21, item 10: the
sweeper's time limits made every send fail, beat logged "Couldn't apply scheduled task" each
minute and the heartbeat stayed fresh). So each entry that fails to apply is recorded in
``<heartbeat>.failures`` (entry name → error, JSON), removed when that entry applies again, and
the check fails while any is recorded. A broker outage counts too: beat cannot do its work then.

Start beat with ``celery -A deniable beat -S deniable.beat:HeartbeatScheduler``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler, ScheduleEntry

DEFAULT_HEARTBEAT = "/tmp/deniable-beat-heartbeat"  # noqa: S108 — a liveness stamp, no data
DEFAULT_MAX_AGE_SECONDS = 180.0


def heartbeat_path() -> Path:
    return Path(os.environ.get("DENIABLE_BEAT_HEARTBEAT", DEFAULT_HEARTBEAT))


def touch_heartbeat(path: Path | None = None) -> None:
    """Write the current time into the heartbeat file (its mtime is what the check reads)."""
    path = path or heartbeat_path()
    path.write_text(f"{time.time():.0f}\n")


def heartbeat_age(path: Path | None = None, *, now: float | None = None) -> float | None:
    """Seconds since the last beat, or ``None`` when beat never beat."""
    path = path or heartbeat_path()
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return None
    return (time.time() if now is None else now) - mtime


def failures_path(path: Path | None = None) -> Path:
    path = path or heartbeat_path()
    return path.with_name(path.name + ".failures")


def apply_failures(path: Path | None = None) -> dict[str, str]:
    """{entry name: error} of the scheduled entries whose last send failed."""
    try:
        failures = json.loads(failures_path(path).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return failures if isinstance(failures, dict) else {}


def record_apply(name: str, error: str | None, path: Path | None = None) -> None:
    """Record the outcome of sending entry ``name`` (``error`` None: it was sent)."""
    failures = apply_failures(path)
    if error is None and name not in failures:
        return
    if error is None:
        del failures[name]
    else:
        failures[name] = error
    target = failures_path(path)
    if failures:
        target.write_text(json.dumps(failures, sort_keys=True) + "\n")
    else:
        target.unlink(missing_ok=True)


def is_alive(path: Path | None = None, *, max_age: float | None = None) -> bool:
    if max_age is None:
        max_age = float(os.environ.get("DENIABLE_BEAT_HEARTBEAT_MAX_AGE", DEFAULT_MAX_AGE_SECONDS))
    age = heartbeat_age(path)
    return age is not None and age <= max_age


class HeartbeatScheduler(PersistentScheduler):
    """Celery's default (file-persisted) scheduler, touching the heartbeat on every tick."""

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval = super().tick(*args, **kwargs)
        touch_heartbeat()
        return interval

    def apply_async(self, entry: ScheduleEntry, *args: Any, **kwargs: Any) -> Any:
        try:
            result = super().apply_async(entry, *args, **kwargs)
        except Exception as exc:  # SchedulingError: beat logs it; the health check reports it
            record_apply(str(entry.name), str(exc)[:500])
            raise
        record_apply(str(entry.name), None)
        return result


def main() -> int:
    """The health check: 0 when the heartbeat is fresh, 1 otherwise."""
    age = heartbeat_age()
    failures = apply_failures()
    for name, error in sorted(failures.items()):
        print(f"beat cannot apply scheduled task {name}: {error}", file=sys.stderr)
    if is_alive() and not failures:
        return 0
    if not is_alive():
        print(f"beat heartbeat {'missing' if age is None else f'{age:.0f} s old'}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
