"""The database settings from the environment, for base.py: ``DATABASE_URL`` (django-environ),
else the embedded SQLite file; what each database needs for the app, and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import environ


def database_settings(env: environ.Env, *, var_dir: Path) -> dict[str, Any]:
    """``DATABASES`` for ``DATABASE_URL`` (default: ``<var_dir>/db.sqlite3``)."""
    default = env.db("DATABASE_URL", default=f"sqlite:///{var_dir / 'db.sqlite3'}")
    default["ATOMIC_REQUESTS"] = False
    default["CONN_HEALTH_CHECKS"] = True
    # Connections are kept open between requests on both databases. On SQLite a new connection per
    # request re-read the schema and re-registered Django's functions (≈ 1 ms of CPU per request),
    # and its first read could meet a writer's commit and sleep in the busy handler
    # (bench/RESULTS.md §10).
    default.setdefault("CONN_MAX_AGE", env.int("DB_CONN_MAX_AGE", default=60))
    if not default["ENGINE"].endswith("postgresql"):
        # SQLite (the embedded default). IMMEDIATE: every transaction takes the write lock at BEGIN,
        # waiting up to ``timeout`` seconds for it. With SQLite's default DEFERRED transactions a
        # transaction that read first and then wrote had to *upgrade* its lock, and a concurrent
        # writer made that upgrade fail at once with "database is locked" (the busy timeout does not
        # apply to an upgrade that could deadlock): releases stuck pending with their budget
        # charged, capped surveys answered 503 (issue 11, item 4; tests/embedded/). The rollback
        # journal (default) rather than WAL: a WAL file keeps page images in commit order until a
        # checkpoint, which is arrival order (SECURITY.md, "Arrival order").
        options = default.setdefault("OPTIONS", {})
        options.setdefault("timeout", 20)
        options.setdefault("transaction_mode", "IMMEDIATE")
        # Deleted rows are overwritten with zeros, not left in free pages: a batch's re-write
        # (surveys.services.batches) must not leave the old copies readable in the file.
        options.setdefault("init_command", "PRAGMA secure_delete = ON;")
    else:
        # PostgreSQL: no bitmap scans in the app's sessions. Publishing a batch re-writes its rows,
        # so each submission leaves a dead entry in the indexes on the survey's rows until VACUUM. A
        # plain index scan marks the dead entries it meets and later scans skip them; a bitmap scan
        # never does. Planned as one (a table not yet analyzed), the tail's count on every
        # submission read every entry dead since the last VACUUM: the bench fell from 614 to 368
        # req/s in 50 s (bench/RESULTS.md §10, round 11; tests/surveys/test_dead_tail_entries.py).
        # The planner then takes a plain index scan or a sequential scan where it would have taken a
        # bitmap.
        options = default.setdefault("OPTIONS", {})
        options["options"] = f"{options.get('options', '')} -c enable_bitmapscan=off".strip()
        # Prepared statements, for the cursors that ask (deniable.prepared: the submission's one
        # statement and the batch publication's). Django turns them off (None) for every cursor, so
        # ``prepare=True`` was ignored and each was parsed and planned on every execution. Django's
        # own cursors bind on the client and never prepare, whatever this says. Off for a pooler
        # that cannot keep them (docs/deployment.md).
        if env.bool("DENIABLE_DB_PREPARED_STATEMENTS", default=True):
            options.setdefault("prepare_threshold", 5)
    return {"default": default}
