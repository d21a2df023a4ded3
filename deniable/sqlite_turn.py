"""SQLite writers take turns, handed over at once instead of by polling, and a worker's waiting
submissions share one transaction (issue 24, goal 1).

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

:func:`sqlite_group_commit` is the submission path's use of the turn: *group commit*. A
submission's work is queued in its worker process; the thread that gets the turn runs every
queued submission, its own and those of the worker's other threads that queued while it waited
for the other processes, each in a savepoint (none for a group of one), in ONE
``BEGIN IMMEDIATE`` … ``COMMIT``; submissions that queue while it runs join it (up to
``GROUP_LIMIT``). Then it settles each survey's unpublished tail once (re-written in key order, or
published as a batch) and commits.
The per-transaction costs — the rollback journal's create, its ``fdatasync`` calls and unlink,
and above all re-writing the tail, whose rows lie on ≈ k/2 pages of the key-ordered table — are
paid once per group instead of once per submission. Each caller still gets its own outcome: a
submission that fails (a used invitation, a full survey) rolls back its savepoint only, and its
caller receives that error; if the commit or a settling fails, every submission of the group gets
the error and none is stored (a 2xx is sent only once its row is committed), those refused
included (their refusal may have rested on a rolled-back row; a retry gets the real answer). A
callback that fails after the COMMIT changes no outcome. Each caller's error is its own object,
with no traceback through the leader's frames: those hold the other callers' submissions and
invitation tokens, which a debug page or an error reporter would show.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import logging
import os
import threading
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

from django.db import connection, transaction
from django.utils import translation

T = TypeVar("T")
logger = logging.getLogger(__name__)

_thread_turn = threading.Lock()
# One descriptor per process (flock belongs to the open file: threads share it, hence the
# thread lock; a forked worker opens its own).
_lock_file: dict[int, int] = {}


def _descriptor(path: str) -> int:
    pid = os.getpid()
    if pid not in _lock_file:
        _lock_file[pid] = os.open(f"{path}.writer-turn", os.O_RDWR | os.O_CREAT, 0o600)
    return _lock_file[pid]


def _turn_file() -> str | None:
    """The database file whose turn this connection takes, or None where turns do not apply."""
    name = str(connection.settings_dict.get("NAME") or "")
    file_backed = name and name != ":memory:" and not name.startswith("file:")
    if connection.vendor != "sqlite" or not file_backed or connection.in_atomic_block:
        return None
    return name


@contextlib.contextmanager
def _between_processes(name: str) -> Iterator[None]:
    fd = _descriptor(name)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def sqlite_writer_turn() -> Iterator[None]:
    """Hold the submission writers' turn for the enclosed write transaction (module notes)."""
    name = _turn_file()
    if name is None:
        yield
        return
    with _thread_turn, _between_processes(name):
        yield


def sqlite_group_commit_applies() -> bool:
    """True where :func:`sqlite_group_commit` groups: a SQLite file, outside any transaction."""
    return _turn_file() is not None


@dataclasses.dataclass(eq=False)
class _Work(Generic[T]):
    run: Callable[[], T]
    key: Hashable
    settle: Callable[[], object]
    language: str | None
    done: bool = False
    result: T | None = None
    error: BaseException | None = None


# Works per transaction at most: a group that kept taking newcomers would never commit.
GROUP_LIMIT = 64
_queued: list[_Work[Any]] = []
_queue_lock = threading.Lock()


def sqlite_group_commit(run: Callable[[], T], *, key: Hashable, settle: Callable[[], object]) -> T:
    """Run ``run`` in a write transaction shared with the worker's other queued submissions
    (module notes); ``settle`` runs once per ``key`` in the group, after every work of that key,
    if at least one of them returned a true value. Returns ``run``'s value or raises its error.

    Only where :func:`sqlite_group_commit_applies`; the caller handles the other cases.
    """
    name = _turn_file()
    if name is None:
        raise RuntimeError("sqlite_group_commit needs a SQLite file outside a transaction")
    # The leader runs the others' work on its own thread: each keeps its request's language.
    work = _Work(run=run, key=key, settle=settle, language=translation.get_language())
    with _queue_lock:
        _queued.append(work)
    with _thread_turn:
        try:
            while not work.done:  # FIFO, ``GROUP_LIMIT`` at a time: this one's group comes
                _lead(name)
        finally:
            if not work.done:  # failed before its group ran: never run it after its caller's error
                with _queue_lock:
                    if work in _queued:
                        _queued.remove(work)
    # Raised from here, with no frame of the leader's (whose locals hold every submission of the
    # group, invitation tokens included) and none of another caller's.
    if work.error is not None:
        raise work.error
    return work.result  # type: ignore[return-value]  # set by the group when error is None


def _lead(name: str) -> None:
    # Taken off the queue only once the other processes have let go of the turn: what the
    # worker's threads queued meanwhile joins this group.
    with _between_processes(name):
        with _queue_lock:
            group = _queued[:GROUP_LIMIT]
            del _queued[:GROUP_LIMIT]
        _run_group(group)


class _LoneFailure(Exception):
    """Rolls back a group of one whose work failed (its error is already recorded)."""


def _detached(exc: BaseException) -> BaseException:
    """``exc`` without its traceback and chain: those run through the leader's frames, whose
    locals hold the other callers' submissions (the debug page and error reporters show them)."""
    exc.__cause__ = exc.__context__ = None
    exc.__suppress_context__ = True
    return exc.with_traceback(None)


def _fresh(exc: BaseException) -> BaseException:
    """A new exception like ``exc`` for one caller: the same object raised in several threads
    would gather every caller's frames in its traceback."""
    try:
        return type(exc)(*exc.args) if isinstance(exc, Exception) else RuntimeError(str(exc))
    except Exception:  # noqa: BLE001 — a constructor that does not take its own args
        return RuntimeError(str(exc))


def _savepoint_unless(alone: bool) -> contextlib.AbstractContextManager[object]:
    return contextlib.nullcontext() if alone else transaction.atomic()


def _run_group(group: list[_Work[Any]]) -> None:
    committed: list[bool] = []
    try:
        with transaction.atomic():
            # Registered first, so it runs first after COMMIT: a later callback that raises
            # does not turn stored submissions into errors.
            transaction.on_commit(lambda: committed.append(True))
            for settle in _run_works(group).values():
                settle()
    except _LoneFailure:
        pass  # the lone work's own error is recorded; nothing was written
    except BaseException as exc:
        if committed:
            logger.exception("after a group commit: the submissions are stored")
        else:
            # Nothing of the group was stored. Every caller gets the failure, also those refused
            # (a full survey, a used invitation) on the strength of a row that was rolled back:
            # their retry gets their real answer.
            for work in group:
                work.result = None
                work.error = _fresh(exc)
        if not isinstance(exc, Exception):
            raise
    finally:
        for work in group:
            work.done = True


def _run_works(group: list[_Work[Any]]) -> dict[Hashable, Callable[[], object]]:
    """Each work in its savepoint, then those queued meanwhile (appended to ``group``), until
    none is waiting or the group has ``GROUP_LIMIT``. A work alone in the transaction needs no
    savepoint: its error rolls back the whole, which holds nothing else yet. Returns the settles
    due: one per key with a work that returned a true value."""
    settles: dict[Hashable, Callable[[], object]] = {}
    start = 0
    while start < len(group):
        alone = len(group) == 1
        for work in group[start:]:
            try:
                with translation.override(work.language), _savepoint_unless(alone):
                    work.result = work.run()
            except Exception as exc:  # noqa: BLE001 — any error is this work's own outcome
                work.error = _detached(exc)  # this work's own outcome, for its caller
                if alone:
                    raise _LoneFailure from None
                continue
            if work.result:
                settles.setdefault(work.key, work.settle)
        start = len(group)
        with _queue_lock:
            joining = _queued[: GROUP_LIMIT - len(group)]
            del _queued[: len(joining)]
        group.extend(joining)
    return settles
