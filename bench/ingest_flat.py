"""Ingestion flat in n (issue 29): submissions/s into a survey already holding N published rows
against an empty survey, for k = 1 and k = 10, on PostgreSQL and on SQLite; plus
``rebuild_tallies`` on the big survey.

``python -m bench.ingest_flat [--quick] [--n N] [--backends postgresql,sqlite]``

Each backend runs in a child process of its own (Django's database is fixed per process):
PostgreSQL in the database ``deniable_bench_ingest`` (``BENCH_PG_URL``, ``BENCH_INGEST_DB``),
SQLite in ``var/bench-ingest.sqlite3`` (``BENCH_INGEST_SQLITE``); both are created and
migrated, and the big survey is bulk-loaded once (kept between runs, reused when it has N
published rows). The submissions go through the submission endpoint's own code in-process
(``django.test.Client`` POSTing ``…/responses/``: URL routing, the serializer, the service, the
batch publication), not over a socket, so the ratio measures the database work that could grow
with n and nothing else moves.
Candidates are interleaved: each round posts for ``T`` seconds into the empty survey, then into
the big one (the order alternates by round); the figures are medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

NAME = "ingest_flat"
DESCRIPTION = "submissions/s into a survey with N rows vs an empty one, k = 1 and 10, PG + SQLite"
ROOT = Path(__file__).resolve().parent.parent
PG_DB = os.environ.get("BENCH_INGEST_DB", "deniable_bench_ingest")
SQLITE_PATH = Path(os.environ.get("BENCH_INGEST_SQLITE", ROOT / "var" / "bench-ingest.sqlite3"))
BIG_SLUG = "bench-ingest-n{n}"


def unavailable() -> str | None:
    from bench import stack

    return stack.need(postgres=True)


# --------------------------------------------------------------------------- the child


def _sqlite_load(survey_id: int, n: int) -> None:
    """N published submissions generated inside SQLite (a recursive CTE; no rows cross from
    Python), each answering every question with a random value of the right kind."""
    from django.db import connection, transaction

    from bench.fixtures import SURVEY_BODY

    parts = []
    for q in SURVEY_BODY["questions"]:
        if q["kind"] == "yes_no":
            value = "json(CASE abs(random()) % 2 WHEN 0 THEN 'true' ELSE 'false' END)"
        elif q["kind"] == "number":
            lo, hi = q["min"], q["max"]
            value = f"round({lo} + (abs(random()) % 1000) / 1000.0 * {hi - lo}, 1)"
        else:
            options = json.dumps(q["options"])
            value = (
                f"json_extract('{options}', '$[' || (abs(random()) % {len(q['options'])}) || ']')"
            )
        parts.append(f"'{q['key']}', {value}")
    answers = f"json_object({', '.join(parts)})"
    with transaction.atomic(), connection.cursor() as c:
        c.execute(
            "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < %s) "
            "INSERT INTO surveys_submission"
            " (id, survey_id, randomizer, submitted_on, fingerprint, sealed, answers)"
            f" SELECT lower(hex(randomblob(16))), %s, 'browser', date('now'),"
            f" lower(hex(randomblob(32))), 1, {answers} FROM g",
            [n, survey_id],
        )
    with connection.cursor() as c:
        c.execute("ANALYZE")


def _big_survey(n: int) -> tuple[Any, float]:
    from django.db import connection

    from bench.fixtures import create_open_survey
    from surveys.models import Submission, Survey

    slug = BIG_SLUG.format(n=n)
    survey = Survey.objects.filter(slug=slug).first()
    if survey is not None and Submission.objects.filter(survey=survey).count() >= n:
        return survey, 0.0
    if survey is not None:
        survey.delete()
    survey = create_open_survey(title_suffix=f" ({n:,} rows)", slug=slug)
    start = time.perf_counter()
    if connection.vendor == "postgresql":
        from bench.bulkload import _load

        _load(survey.pk, n)
    else:
        _sqlite_load(survey.pk, n)
    return survey, time.perf_counter() - start


def _post_for(client: Any, path: str, seconds: float) -> float:
    """Submissions/s into one survey for ``seconds`` (every answer a 201)."""
    import uuid

    from bench.fixtures import ANSWERS

    done, start = 0, time.perf_counter()
    while True:
        body = {"submission_id": str(uuid.uuid4()), "randomizer": "browser", "answers": ANSWERS}
        response = client.post(path, json.dumps(body), content_type="application/json")
        if response.status_code != 201:
            raise AssertionError(f"{response.status_code}: {response.content[:300]!r}")
        done += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def _rebuild_seconds(survey: Any) -> float:
    from io import StringIO

    from django.core.management import call_command

    start = time.perf_counter()
    call_command("rebuild_tallies", survey.slug, stdout=StringIO(), stderr=sys.stderr)
    return time.perf_counter() - start


def child(n: int, rounds: int, seconds: float, rebuild: bool) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client, override_settings

    from bench.fixtures import create_open_survey

    call_command("migrate", verbosity=0)
    big, load_seconds = _big_survey(n)
    empty = create_open_survey(title_suffix=" (empty)")
    client = Client()
    paths = {
        "empty": f"/api/v1/surveys/{empty.slug}/responses/",
        "big": f"/api/v1/surveys/{big.slug}/responses/",
    }
    out: dict[str, Any] = {
        "backend": connection.vendor,
        "n": n,
        "load_seconds": round(load_seconds, 1),
        "rounds": rounds,
        "seconds_per_round": seconds,
    }
    _post_for(client, paths["empty"], 0.5)  # warm-up: caches, prepared statements
    _post_for(client, paths["big"], 0.5)
    for k in (1, 10):
        rates: dict[str, list[float]] = {"empty": [], "big": []}
        with override_settings(DENIABLE_ESTIMATE_BATCH=k):
            for r in range(rounds):
                order = ("empty", "big") if r % 2 == 0 else ("big", "empty")
                for name in order:
                    rates[name].append(_post_for(client, paths[name], seconds))
        empty_rate, big_rate = (statistics.median(rates[x]) for x in ("empty", "big"))
        out[f"k{k}"] = {
            "empty_per_s": round(empty_rate, 1),
            "big_per_s": round(big_rate, 1),
            "ratio": round(big_rate / empty_rate, 3),
            "rounds": {x: [round(v, 1) for v in rates[x]] for x in rates},
        }
    if rebuild:
        out["rebuild_tallies_seconds"] = round(_rebuild_seconds(big), 1)
    return out


# --------------------------------------------------------------------------- the parent


def _env(backend: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "deniable.settings.base")
    env["DJANGO_DEBUG"] = "false"
    env["DENIABLE_SUBMISSION_RATE_LIMIT"] = str(10**9)  # measure storage, not the limiter
    env.pop("REDIS_URL", None)  # a process-local cache: nothing else shares the measurement
    if backend == "postgresql":
        base = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
        env["DATABASE_URL"] = f"{base.rstrip('/')}/{PG_DB}"
    else:
        SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
        env["DATABASE_URL"] = f"sqlite:///{SQLITE_PATH}"
    return env


def _ensure_pg_database() -> None:
    import psycopg

    base = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
    with psycopg.connect(f"{base.rstrip('/')}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [PG_DB]).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {PG_DB}")


def run(quick: bool, n: int | None = None, backends: tuple[str, ...] = ("postgresql", "sqlite"),
        rebuild: bool = True) -> dict[str, Any]:  # fmt: skip
    from bench.common import markdown_table

    n = n or (10_000 if quick else 1_000_000)
    rounds, seconds = (2, 1.0) if quick else (5, 4.0)
    results: dict[str, Any] = {}
    for backend in backends:
        if backend == "postgresql":
            _ensure_pg_database()
        args = [sys.executable, "-m", "bench.ingest_flat", "--child", str(n), str(rounds),
                str(seconds), "1" if rebuild else "0"]  # fmt: skip
        done = subprocess.run(args, env=_env(backend), cwd=ROOT, capture_output=True, text=True)
        sys.stderr.write(done.stderr[-3000:])
        if done.returncode != 0:
            raise RuntimeError(f"{backend} child failed ({done.returncode})")
        results[backend] = json.loads(done.stdout.strip().splitlines()[-1])
    rows = []
    for backend, r in results.items():
        for k in (1, 10):
            m = r[f"k{k}"]
            rows.append([backend, f"{r['n']:,}", k, m["empty_per_s"], m["big_per_s"],
                         f"**{m['ratio']:.2f}×**"])  # fmt: skip
    print(markdown_table(["backend", "N", "k", "empty /s", "big /s", "big ÷ empty"], rows))
    for backend, r in results.items():
        extra = f"bulk load {r['load_seconds']} s" if r["load_seconds"] else "reused"
        if "rebuild_tallies_seconds" in r:
            extra += f"; rebuild_tallies {r['rebuild_tallies_seconds']} s"
        print(f"{backend}: {extra}")
    return results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        n, rounds, seconds, rebuild = int(argv[1]), int(argv[2]), float(argv[3]), argv[4] == "1"
        print(json.dumps(child(n, rounds, seconds, rebuild)))
        return 0
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=None, help="rows in the big survey")
    parser.add_argument("--backends", default="postgresql,sqlite")
    parser.add_argument("--no-rebuild", action="store_true")
    args = parser.parse_args(argv)
    import types

    from bench.common import execute

    backends = tuple(args.backends.split(","))
    # The harness calls ``run(quick)``: a stand-in module carrying this command line's options.
    module = types.SimpleNamespace(
        NAME=NAME,
        DESCRIPTION=DESCRIPTION,
        run=lambda quick: run(quick, n=args.n, backends=backends, rebuild=not args.no_rebuild),
    )
    execute(module, quick=args.quick)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
