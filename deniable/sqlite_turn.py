"""SQLite writers take turns, handed over at once instead of by polling (issue 24, goal 1).

On SQLite (the embedded default) every write transaction is ``BEGIN IMMEDIATE``: it waits for the
database's one write lock through SQLite's busy handler, which *sleeps and retries* with growing
pauses (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms, then 100 ms steps; sqlite3.c,
``sqliteDefaultBusyCallback``). Under a few concurrent submissions a waiter that keeps losing
the race sleeps 50–100 ms at a time: the submission bench measured a p99 of 426 ms against the
one-row baseline's 28 ms (bench/RESULTS.md §10).

:func:`sqlite_writer_turn` puts the submission path's writers in a queue first: a thread lock
among a worker's threads, then an exclusive ``flock`` on a file beside the database among the
worker processes. Both block in the kernel and wake the next waiter when the holder lets go, so
the write lock is free by the time a writer asks for it and the busy handler never sleeps on
another submission. Other writers (releases, the researcher's pages) still meet the busy handler,
as before. PostgreSQL, an in-memory database and a caller already inside a transaction (which
may hold SQLite's lock: waiting for a turn then could deadlock with the turn's holder) pass
straight through.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator

from django.db import connection

_thread_turn = threading.Lock()
# One descriptor per process (flock belongs to the open file: threads share it, hence the
# thread lock; a forked worker opens its own).
_lock_file: dict[int, int] = {}


def _descriptor(path: str) -> int:
    pid = os.getpid()
    if pid not in _lock_file:
        _lock_file[pid] = os.open(f"{path}.writer-turn", os.O_RDWR | os.O_CREAT, 0o600)
    return _lock_file[pid]


@contextlib.contextmanager
def sqlite_writer_turn() -> Iterator[None]:
    """Hold the submission writers' turn for the enclosed write transaction (module notes)."""
    name = str(connection.settings_dict.get("NAME") or "")
    file_backed = name and name != ":memory:" and not name.startswith("file:")
    if connection.vendor != "sqlite" or not file_backed or connection.in_atomic_block:
        yield
        return
    with _thread_turn:
        fd = _descriptor(name)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
