"""The database's side of a submission, statement by statement (issue 24, goal 1): pgbench
replays the app's own SQL against a migrated schema, next to a plain one-row insert.

``python -m bench.db_statements [--quick]``

A child process (Django on the bench settings, database ``deniable_bench_statements``,
``BENCH_STATEMENTS_DB``, dropped and created afresh) migrates, opens the bench survey and posts
k submissions through the endpoint, recording what the k-th one's batch publication sends
(Django's ``execute_wrapper``: every statement, whether it ran inside the batch's transaction,
its parameters inlined by psycopg's own client-side binding). The submission's one statement is
``surveys.services.submission_storage``'s own text with its parameters inlined, the submission
id replaced by ``gen_random_uuid()``. Nothing is written by hand except the variants' cuts.

Variants (pgbench ``-M prepared``, ``BENCH_PG_CLIENTS`` clients, default 4, each running its
batch publication after every k-th of its own submissions, so the batches hold ≈ k rows):

* ``plain insert`` — the HTTP bench's DRF baseline row (``bench.baseline_app``), one INSERT;
* ``our row`` — a plain INSERT of a submission row (its JSON answers, three indexes, the foreign
  key): what storing our row costs without anything that hides arrival order;
* ``our row + batch`` — that, and the batch publication every k-th time (the re-write in key
  order, the tallies' upsert, the webhooks' look-up, the counts and locks);
* ``ours`` — the app's statement (the conditional insert under ``FOR KEY SHARE`` and the tail's
  count) and the batch: what the app sends;
* ``ours, no foreign key`` — the same with the submissions' foreign key dropped (a measurement of
  what the constraint's check costs, not a proposal).

Before every run the submissions table is emptied and re-filled with N sealed rows (so the planner
takes the indexes, as in production), then vacuumed and analysed. The runs are interleaved,
rotated each round; the figures are median transactions/s with ``synchronous_commit`` off (the
database's CPU, no fsync) and on (as the app runs). ``enable_bitmapscan=off``, as the app sets it.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

NAME = "db_statements"
DESCRIPTION = "the database's side of a submission: pgbench on the app's own SQL vs a plain insert"
ROOT = Path(__file__).resolve().parent.parent
DB = os.environ.get("BENCH_STATEMENTS_DB", "deniable_bench_statements")
CLIENTS = int(os.environ.get("BENCH_PG_CLIENTS", "4"))
K = 10  # the product's default batch (DENIABLE_ESTIMATE_BATCH), set in the child explicitly
VARIANTS = ("plain insert", "our row", "our row + batch", "ours", "ours, no foreign key")
_UUID_SENTINEL = "00000000-0000-4000-8000-00000000beef"


def unavailable() -> str | None:
    from bench import stack

    return stack.need(postgres=True, tools=("pgbench",))


# --------------------------------------------------------------------------- the child


def _inline(sql: str, params: Any) -> str:
    """``sql`` with ``params`` inlined as psycopg's client-side binding writes them."""
    import psycopg
    from django.db import connection

    with psycopg.ClientCursor(connection.connection) as cursor:
        return cursor.mogrify(sql, params)


def _batch_statements(path: str) -> list[tuple[str, bool]]:
    """Post k submissions; the k-th one's statements sent through Django (the batch's), each
    with whether it ran inside a transaction."""
    from django.db import connection
    from django.test import Client

    from bench.fixtures import ANSWERS

    client = Client()

    def post() -> None:
        body = {"submission_id": str(uuid.uuid4()), "randomizer": "browser", "answers": ANSWERS}
        response = client.post(path, json.dumps(body), content_type="application/json")
        if response.status_code != 201:
            raise AssertionError(f"{response.status_code}: {response.content[:300]!r}")

    for _ in range(K - 1):
        post()
    seen: list[tuple[str, Any, bool]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, params, connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        post()
    return [(_inline(sql, params), in_tx) for sql, params, in_tx in seen]


def _any_shard(sql: str, survey_id: int) -> str:
    """The tallies' upsert with pgbench's ``:shard`` (drawn per batch, as the app draws it with
    ``secrets.randbelow``) in place of the shard the captured batch drew: with one fixed shard
    every client's batch would wait for the same tally rows."""
    from surveys.models import Tally

    if not sql.startswith(f'INSERT INTO "{Tally._meta.db_table}"'):
        return sql
    shards = set(Tally.objects.filter(survey_id=survey_id).values_list("shard", flat=True))
    if len(shards) != 1:
        raise AssertionError(f"one batch, one shard expected: {shards}")
    (shard,) = shards
    quoted = r"'(?:[^']|'')*'"
    tuple_start = rf"\(({survey_id}), ({quoted}), ({quoted}), {shard}, "
    replaced, count = re.subn(tuple_start, r"(\1, \2, \3, :shard, ", sql)
    if count == 0:
        raise AssertionError(f"no row of shard {shard} in {sql[:300]}")
    return replaced


def child() -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import override_settings
    from django.utils import timezone

    from bench.baseline_app.models import BaselineRow
    from bench.fixtures import create_open_survey
    from surveys.models import TALLY_SHARDS, Submission, Survey
    from surveys.services.submission_storage import (
        _one_statement_sql,
        one_statement_params,
        submission_insert_params,
    )

    call_command("migrate", run_syncdb=True, verbosity=0)
    connection.ensure_connection()
    with override_settings(DENIABLE_ESTIMATE_BATCH=K):
        survey = create_open_survey(slug="bench-statements")
        batch = _batch_statements(f"/api/v1/surveys/{survey.slug}/responses/")
    if not any(sql.lstrip().upper().startswith("WITH MOVED") for sql, _ in batch):
        raise AssertionError(f"the k-th submission published no batch: {batch}")
    batch = [(_any_shard(sql, survey.pk), in_tx) for sql, in_tx in batch]
    row = Submission.objects.filter(survey=survey).values("answers", "fingerprint").first()
    assert row is not None
    params = submission_insert_params(sid=uuid.UUID(_UUID_SENTINEL), survey=survey,
                                      randomizer="browser", fingerprint=row["fingerprint"],
                                      answers=row["answers"])  # fmt: skip
    one = _inline(_one_statement_sql(), one_statement_params(params))
    # Django binds a uuid as its 32 hex digits (submission_insert_params).
    one = one.replace(f"'{uuid.UUID(_UUID_SENTINEL).hex}'", "gen_random_uuid()")
    if "gen_random_uuid()" not in one:
        raise AssertionError(f"the submission id was not found in {one[:200]}")
    qn = connection.ops.quote_name
    sub = qn(Submission._meta.db_table)
    answers = _inline("%s::jsonb", [json.dumps(row["answers"])])
    row_insert = (
        f"INSERT INTO {sub} (id, survey_id, randomizer, submitted_on, fingerprint, answers) "
        f"VALUES (gen_random_uuid(), {survey.pk}, 'browser', current_date, "
        f"'{row['fingerprint']}', {answers})"
    )
    baseline = (
        f"INSERT INTO {qn(BaselineRow._meta.db_table)} (id, note, created_on) "
        f"VALUES (gen_random_uuid(), 'a note of some length', current_date)"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f' "
            "AND confrelid = %s::regclass",
            [Submission._meta.db_table, Survey._meta.db_table],
        )
        (fk,) = cursor.fetchone() or ("",)
        cursor.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %s",
                       [fk])  # fmt: skip
        (fk_def,) = cursor.fetchone() or ("",)
    return {
        "survey_id": survey.pk,
        "shards": TALLY_SHARDS,
        "submissions": Submission._meta.db_table,
        "baseline_table": BaselineRow._meta.db_table,
        "answers": json.dumps(row["answers"]),
        "one_statement": one,
        "row_insert": row_insert,
        "baseline_insert": baseline,
        "batch": batch,
        "foreign_key": fk,
        "foreign_key_def": fk_def,
        "when": timezone.now().isoformat(),
    }


# --------------------------------------------------------------------------- the parent


def _pg(dbname: str) -> str:
    from bench.stack import PG_URL

    return f"{PG_URL}/{dbname}"


def _recreate_database() -> None:
    import psycopg

    with psycopg.connect(_pg("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')


def _scripts(sql: dict[str, Any], folder: Path) -> dict[str, Path]:
    """One pgbench script per variant; the batch runs after every k-th of the client's own."""
    inside = [s for s, in_tx in sql["batch"] if in_tx]
    after = [s for s, in_tx in sql["batch"] if not in_tx]
    batch = [
        "\\set n :n + 1",
        f"\\set shard random(0, {sql['shards'] - 1})",
        f"\\if :n % {K} = 0",
        "BEGIN;",
        *(f"{s};" for s in inside),
        "COMMIT;",
        *(f"{s};" for s in after),
        "\\endif",
    ]
    texts = {
        "plain insert": [sql["baseline_insert"] + ";"],
        "our row": [sql["row_insert"] + ";"],
        "our row + batch": [sql["row_insert"] + ";", *batch],
        "ours": [sql["one_statement"] + ";", *batch],
        "ours, no foreign key": [sql["one_statement"] + ";", *batch],
    }
    paths = {}
    for i, (name, lines) in enumerate(texts.items()):
        paths[name] = folder / f"{i}.sql"
        # pgbench reads a statement per line: no statement here spans lines.
        paths[name].write_text("\n".join(line.replace("\n", " ") for line in lines) + "\n")
    return paths


def _reset(sql: dict[str, Any], n: int, *, foreign_key: bool) -> None:
    """N sealed rows in the survey and nothing else; the foreign key as the variant needs."""
    import psycopg

    sub, fk = sql["submissions"], sql["foreign_key"]
    with psycopg.connect(_pg(DB), autocommit=True) as conn:
        conn.execute(f'TRUNCATE "{sub}", "{sql["baseline_table"]}"')
        has_fk = conn.execute("SELECT 1 FROM pg_constraint WHERE conname = %s", [fk]).fetchone()
        if has_fk and not foreign_key:
            conn.execute(f'ALTER TABLE "{sub}" DROP CONSTRAINT "{fk}"')
        elif foreign_key and not has_fk:
            conn.execute(f'ALTER TABLE "{sub}" ADD CONSTRAINT "{fk}" {sql["foreign_key_def"]}')
        conn.execute(
            f'INSERT INTO "{sub}" (id, survey_id, randomizer, submitted_on, fingerprint, sealed, '
            "answers) SELECT gen_random_uuid(), %s, 'browser', current_date, md5(g::text) || "
            "md5(g::text), true, %s::jsonb FROM generate_series(1, %s) g",
            [sql["survey_id"], sql["answers"], n],
        )
        conn.execute(f'VACUUM ANALYZE "{sub}"')
        conn.execute(f'VACUUM ANALYZE "{sql["baseline_table"]}"')


def _pgbench(script: Path, seconds: float, *, sync: bool) -> float:
    from bench.stack import PG_URL

    host_port = PG_URL.split("@", 1)[-1]
    host, _, port = host_port.partition(":")
    user = PG_URL.split("://", 1)[-1].split("@", 1)[0] or "postgres"
    options = "-c enable_bitmapscan=off" + ("" if sync else " -c synchronous_commit=off")
    done = subprocess.run(
        ["pgbench", "-n", "-M", "prepared", "-h", host, "-p", port or "5432", "-U", user,
         "-c", str(CLIENTS), "-j", str(min(CLIENTS, 2)), "-T", str(int(seconds)),
         "-D", "n=0", "-f", str(script), DB],
        env={**os.environ, "PGOPTIONS": options}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"pgbench failed on {script.name}: {done.stderr[-1500:]}")
    for line in done.stdout.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(f"no tps in pgbench's output: {done.stdout[-500:]}")


def run(quick: bool) -> dict[str, Any]:
    from bench import stack
    from bench.common import markdown_table

    # Quick (CI keeps it working): 1 s runs, synchronous commit off only.
    n, rounds, seconds = (2_000, 1, 1.0) if quick else (50_000, 3, 8.0)
    syncs = (False,) if quick else (False, True)
    _recreate_database()
    env = stack.bench_env(DATABASE_URL=_pg(DB))
    done = subprocess.run([sys.executable, "-m", "bench.db_statements", "--child"], env=env,
                          cwd=ROOT, capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the child failed ({done.returncode}): {done.stderr[-3000:]}")
    sql = json.loads(done.stdout.strip().splitlines()[-1])
    results: dict[str, Any] = {"n_sealed": n, "clients": CLIENTS, "k": K, "seconds": seconds,
                               "statements": sql}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        scripts = _scripts(sql, Path(tmp))
        for sync in syncs:
            tps: dict[str, list[float]] = {name: [] for name in VARIANTS}
            for r in range(rounds):
                order = VARIANTS[r % len(VARIANTS) :] + VARIANTS[: r % len(VARIANTS)]
                for name in order:
                    _reset(sql, n, foreign_key=name != "ours, no foreign key")
                    tps[name].append(_pgbench(scripts[name], seconds, sync=sync))
            results[f"sync_{'on' if sync else 'off'}"] = {
                name: {"median_tps": statistics.median(v), "runs": v} for name, v in tps.items()
            }
        _reset(sql, 0, foreign_key=True)
    rows = []
    modes = [s for s in ("off", "on") if f"sync_{s}" in results]
    plain = {s: results[f"sync_{s}"]["plain insert"]["median_tps"] for s in modes}
    for name in VARIANTS:
        cells: list[object] = [name]
        for s in modes:
            median = results[f"sync_{s}"][name]["median_tps"]
            runs = ", ".join(f"{v:,.0f}" for v in results[f"sync_{s}"][name]["runs"])
            cells += [f"{median:,.0f}", f"{plain[s] / median:.2f}×", runs]
        rows.append(cells)
    headers = ["variant"]
    for s in modes:
        headers += [f"tps, sync {s}", "work ÷ plain" if s == "off" else "÷ plain", "runs"]
    print(markdown_table(headers, rows))
    print(f"\n{CLIENTS} clients, k = {K}, {n:,} sealed rows before each run, {seconds:.0f} s runs")
    print("the batch publication replayed:")
    for statement, in_tx in sql["batch"]:
        print(f"  {'in its transaction' if in_tx else 'after its commit  '}: {statement[:110]}")
    return results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        print(json.dumps(child()))
        return 0
    from bench.common import main_for

    return main_for(sys.modules[__name__], argv)


if __name__ == "__main__":
    raise SystemExit(main())
