"""Item 1 (+ item 6, web side): submission throughput over HTTP, next to a DRF baseline and pgbench.

One gunicorn (the project's ``gunicorn.conf.py``, bench settings, PostgreSQL ``deniable_bench``)
serves both endpoints; wrk on loopback drives them with a Lua script that sends a FRESH uuid4 per
request (``bench/wrk/post_uuid.lua``); pgbench inserts single rows into the baseline's table with
the same number of clients. The three candidates run round-robin (order rotated each round, a
``CHECKPOINT`` before each run) so the neighbours' load hits them alike; we report medians, and
ours ÷ baseline per round (paired) with its median.

* ours: ``POST /api/v1/surveys/<slug>/responses/`` with a whole 10-answer submission;
* baseline: ``POST /bench/baseline/``, a plain DRF ``CreateAPIView`` + ``ModelSerializer`` that
  inserts one row (bench-only URLconf, never in the product's URLs);
* pgbench: ``INSERT`` of one row, prepared, ``-c`` = the HTTP connections.

``BENCH_DATABASE_URL=sqlite:////tmp/deniable_bench.sqlite3`` runs ours and the baseline on the
embedded SQLite default instead (no pgbench; the database's CPU is inside the app's workers, so
"app CPU" is the whole cost).

CPU is process time from /proc: gunicorn workers ("app") and the PostgreSQL backends of the bench
database ("db"), per request. Afterwards rows stored are checked against wrk's 2xx counts.
The full run adds a ``synchronous_commit=off`` variant (clearly labelled; not the headline).
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "http_throughput"
DESCRIPTION = (
    "Submission throughput: ours vs a DRF CreateAPIView vs pgbench (gunicorn + PostgreSQL)"
)

LUA = Path(__file__).resolve().parent / "wrk" / "post_uuid.lua"
WORKERS = int(os.environ.get("BENCH_WEB_WORKERS", "2"))
THREADS = int(os.environ.get("BENCH_WEB_THREADS", "2"))
# wrk's keep-alive connections stay with the worker that accepted them, and gunicorn leaves which
# one to chance: one worker often took 3 or all 4 of rounds 1–9's four connections (and 15 or all
# 16 of sixteen), so a run's req/s measured that split, not the code (RESULTS.md §10). From round
# 10 each worker may hold only its share (``worker_connections`` = connections ÷ workers: a worker
# at its cap stops accepting), and the share is four connections per thread, so every thread has a
# request waiting and both candidates run at full load. BENCH_CONNECTIONS=4 BENCH_EVEN_SPLIT=0
# gives the earlier harness.
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", str(4 * WORKERS * THREADS)))
EVEN_SPLIT = os.environ.get("BENCH_EVEN_SPLIT", "1") != "0"
PER_WORKER = -(-CONNECTIONS // WORKERS) if EVEN_SPLIT else None  # None: gunicorn.conf.py's


def unavailable() -> str | None:
    if stack.SQLITE:  # no pgbench and no database server: SQLite runs inside the app's workers
        return stack.ensure_wrk()
    return stack.need(postgres=True, tools=("pgbench",)) or stack.ensure_wrk()


def _busiest_share(before: dict[int, float]) -> float:
    """The busiest worker's share of the workers' CPU in a run. wrk's keep-alive connections
    stay with the worker that accepted them: 0.5 of two workers is an even split, ≈ 1.0 means
    every connection landed on one worker (one GIL for all requests) — which gunicorn leaves to
    chance at each run, and which moved both candidates between two speeds (RESULTS.md §10)."""
    used = [stack.proc_cpu_seconds(pid) - cpu for pid, cpu in before.items()]
    return max(used) / sum(used) if sum(used) > 0 else math.nan


def _split(base: str, workers: list[int], into: list[str]) -> None:
    counts = stack.established_per_process(workers, int(base.rsplit(":", 1)[1]))
    into.append("+".join(str(n) for n in sorted(counts.values(), reverse=True)))


def _wrk(base: str, path: str, template: Path, seconds: float) -> dict[str, Any]:
    out = subprocess.run(
        [
            "wrk",
            "-t",
            "1",
            "-c",
            str(CONNECTIONS),
            "-d",
            f"{seconds:g}s",
            "--timeout",
            "10s",
            "-s",
            str(LUA),
            base,
            "--",
            path,
            str(template),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = re.search(r"^WRKJSON (\{.*\})$", out, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no WRKJSON line in wrk output:\n{out}")
    r = json.loads(match.group(1))
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    return r


def _pgbench(script: Path, seconds: float, workdir: Path, extra_env: dict[str, str]) -> dict:
    for old in workdir.glob("pgbench_log.*"):
        old.unlink()
    url = stack.PG_URL.removeprefix("postgres://")
    user, _, hostport = url.rpartition("@")
    host, _, port = hostport.partition(":")
    out = subprocess.run(
        [
            "pgbench",
            "-n",
            "-M",
            "prepared",
            "-f",
            str(script),
            "-c",
            str(CONNECTIONS),
            "-j",
            str(min(CONNECTIONS, 2)),
            "-T",
            f"{max(1, round(seconds))}",
            "-l",
            "-h",
            host,
            "-p",
            port or "5432",
            "-U",
            user or "postgres",
            stack.DB_NAME,
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=workdir,
        env={**os.environ, **extra_env},
    ).stdout
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    done = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))  # type: ignore[union-attr]
    lat: list[int] = []
    for log in workdir.glob("pgbench_log.*"):
        lat += [int(line.split()[2]) for line in log.read_text().splitlines() if line.strip()]
    lat.sort()

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else float("nan")

    return {
        "rps": tps,
        "requests": done,
        "s2xx": done,
        "s4xx": 0,
        "s5xx": 0,
        "p50_us": pct(50),
        "p99_us": pct(99),
    }


def _phase(
    *,
    label: str,
    survey_slug: str,
    rounds: int,
    seconds: float,
    tmp: Path,
    extra_env: dict[str, str],
) -> dict[str, Any]:
    """One gunicorn, the three candidates round-robin; returns the per-run figures."""
    ours_t = tmp / "ours.json"
    ours_t.write_text(
        json.dumps({"submission_id": "@@", "randomizer": "browser", "answers": _answers()}).replace(
            '"@@"', '"{{UUID}}"'
        )
    )
    base_t = tmp / "baseline.json"
    base_t.write_text('{"id": "{{UUID}}", "note": "baseline"}')
    pg_script = tmp / "insert.sql"
    pg_script.write_text(
        "INSERT INTO baseline_app_baselinerow (id, note, created_on) "
        "VALUES (gen_random_uuid(), 'pgbench', current_date);\n"
    )
    ours_path = f"/api/v1/surveys/{survey_slug}/responses/"
    runs: dict[str, list[dict[str, Any]]] = {"ours": [], "baseline": [], "pgbench": []}
    counted = {"ours": 0, "baseline": 0}
    # Requests written but unanswered when wrk stopped: the server may still have stored them.
    cut_off = {"ours": 0, "baseline": 0}
    with stack.gunicorn(
        workers=WORKERS, threads=THREADS, extra_env=extra_env, connections_per_worker=PER_WORKER
    ) as (base, master):
        workers = stack.children(master.pid)
        app = stack.CpuMeter(lambda: stack.children(master.pid))
        db = stack.CpuMeter(stack.postgres_backends)
        # Warm-up: imports, connections, first queries (counted in the row check, not reported).
        for name, path, tpl in (
            ("ours", ours_path, ours_t),
            ("baseline", "/bench/baseline/", base_t),
        ):
            warm = _wrk(base, path, tpl, 1.0 if seconds < 8 else 2.0)
            counted[name] += warm["s2xx"]
            cut_off[name] += warm["sent"] - warm["requests"]
        order = ["ours", "baseline"] if stack.SQLITE else ["ours", "baseline", "pgbench"]
        for r in range(rounds):
            for name in order[r % len(order) :] + order[: r % len(order)]:
                _checkpoint()
                load0, idle0 = stack.loadavg(), stack.cpu_times()
                per_worker = {pid: stack.proc_cpu_seconds(pid) for pid in workers}
                app.start()
                db.start()
                if name == "pgbench":
                    res = _pgbench(pg_script, seconds, tmp, extra_env)
                else:
                    path, tpl = (
                        (ours_path, ours_t) if name == "ours" else ("/bench/baseline/", base_t)
                    )
                    # Mid-run, how wrk's connections lie over the workers (e.g. "9+7").
                    split: list[str] = []
                    probe = threading.Timer(seconds / 2, _split, args=(base, workers, split))
                    probe.start()
                    res = _wrk(base, path, tpl, seconds)
                    probe.join()
                    res["connections_per_worker"] = split[0] if split else "?"
                    counted[name] += res["s2xx"]
                    cut_off[name] += res["sent"] - res["requests"]
                app_s, db_s = app.stop(), db.stop()
                n = max(1, res["requests"])
                res.update(
                    app_cpu_ms=1000 * app_s / n,
                    db_cpu_ms=1000 * db_s / n,
                    load=load0,
                    round=r,
                    busiest_worker=_busiest_share(per_worker),
                    idle=stack.idle_share(idle0),
                )
                runs[name].append(res)
                print(
                    f"  [{label}] round {r + 1} {name:8s} {res['rps']:8.1f} req/s "
                    f"p50 {res['p50_us'] / 1000:6.2f} ms p99 {res['p99_us'] / 1000:6.2f} ms "
                    f"non-2xx {res['requests'] - res['s2xx']} load {load0:.2f} "
                    f"idle {res['idle']:.0%} "
                    f"busiest worker {res.get('busiest_worker', math.nan):.2f} "
                    f"connections {res.get('connections_per_worker', '-')}"
                )
        rss = {pid: stack.proc_status_kib(pid, "VmHWM") for pid in workers}
        exact = _exact_check(base, ours_path, ours_t)
    return {
        "runs": runs,
        "counted_2xx": counted,
        "cut_off": cut_off,
        "exact": exact,
        "worker_peak_rss_kib": rss,
    }


def _checkpoint() -> None:
    """Start every candidate from the same state: the previous one's dirty pages flushed (else
    whoever runs right after pgbench's burst of WAL pays for its checkpoint). Each candidate then
    pays its own full-page writes after the checkpoint alike."""
    from django.db import connection

    with connection.cursor() as cursor:
        # SQLite: the write-ahead log folded back into the file (the same idea).
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)" if stack.SQLITE else "CHECKPOINT")


def _exact_check(base: str, path: str, template: Path, n: int = 50) -> dict[str, Any]:
    """After the load: n sequential submissions, every one answered: rows added must equal 2xx."""
    import urllib.request
    import uuid

    from surveys.models import Submission

    slug = path.split("/")[4]
    stored = Submission.objects.filter(survey__slug=slug)
    # Let the requests wrk cut off at its deadline drain first: gunicorn may still be working
    # through them, and one landing during the check would be counted as ours.
    before, deadline = stored.count(), time.monotonic() + 15
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = stored.count()
        if now == before:
            break
        before = now
    ok = 0
    for _ in range(n):
        body = template.read_text().replace("{{UUID}}", str(uuid.uuid4())).encode()
        req = urllib.request.Request(
            base + path, data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            ok += 200 <= resp.status < 300
    added = stored.count() - before
    return {"posted": n, "s2xx": ok, "rows_added": added, "ok": ok == added == n}


def _answers() -> dict[str, Any]:
    from bench.fixtures import ANSWERS

    return ANSWERS


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _table(phase: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    runs = phase["runs"]
    summary: dict[str, Any] = {}
    rows = []
    base_rps = _median(runs["baseline"], "rps")
    names = [name for name in ("ours", "baseline", "pgbench") if runs[name]]
    pg_rps = _median(runs["pgbench"], "rps") if runs["pgbench"] else math.nan
    for name in names:
        rps = _median(runs[name], "rps")
        s = {
            "rps": rps,
            "p50_ms": _median(runs[name], "p50_us") / 1000,
            "p99_ms": _median(runs[name], "p99_us") / 1000,
            "app_cpu_ms_per_req": _median(runs[name], "app_cpu_ms"),
            "db_cpu_ms_per_req": _median(runs[name], "db_cpu_ms"),
            "non_2xx": sum(r["requests"] - r["s2xx"] for r in runs[name]),
            "rps_runs": [round(r["rps"], 1) for r in runs[name]],
            "busiest_worker_runs": [
                round(r.get("busiest_worker", math.nan), 2) for r in runs[name]
            ],
            "connections_per_worker_runs": [
                r.get("connections_per_worker", "–") for r in runs[name]
            ],
        }
        summary[name] = s
        rows.append(
            [
                name,
                f"{rps:,.0f}",
                f"{rps / base_rps:.2f}×",
                "–" if math.isnan(pg_rps) else f"{rps / pg_rps:.2f}×",
                f"{s['p50_ms']:.2f}",
                f"{s['p99_ms']:.2f}",
                "–" if name == "pgbench" else f"{s['app_cpu_ms_per_req']:.2f}",
                "in app" if stack.SQLITE else f"{s['db_cpu_ms_per_req']:.2f}",
                s["non_2xx"],
                ", ".join(f"{x:,.0f}" for x in s["rps_runs"]),
                "–"
                if name == "pgbench"
                else ", ".join(f"{x:.2f}" for x in s["busiest_worker_runs"]),
                "–" if name == "pgbench" else ", ".join(s["connections_per_worker_runs"]),
            ]
        )
    # Paired: ours ÷ baseline within each round (adjacent runs see the same machine state), the
    # median of those — steadier than a ratio of medians when the machine's load drifts.
    paired = [o["rps"] / b["rps"] for o, b in zip(runs["ours"], runs["baseline"], strict=True)]
    summary["paired_ratios"] = [round(x, 3) for x in paired]
    summary["paired_ratio_median"] = statistics.median(paired)
    table = markdown_table(
        [
            "candidate",
            "req/s (median)",
            "÷ baseline",
            "÷ pgbench",
            "p50 ms",
            "p99 ms",
            "app CPU ms/req",
            "db CPU ms/req",
            "non-2xx",
            "req/s per run",
            "busiest worker's CPU share per run",
            "connections per worker per run",
        ],
        rows,
    )
    return table, summary


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from bench.baseline_app.models import BaselineRow
    from bench.fixtures import create_open_survey
    from surveys.models import Submission

    rounds, seconds = (1, 2.0) if quick else (5, 10.0)  # quick: CI keeps it working
    print(
        f"gunicorn {WORKERS} workers × {THREADS} threads, at most {PER_WORKER or 'any'} "
        f"connections per worker; wrk -t1 -c{CONNECTIONS}; pgbench "
        f"-c{CONNECTIONS}; {rounds} round(s) × {seconds:g} s per candidate; rate limit off"
    )
    phases: list[tuple[str, dict[str, str]]] = [
        ("sqlite" if stack.SQLITE else "sync_commit=on", {})
    ]
    if stack.SQLITE:
        print("SQLite (BENCH_DATABASE_URL): its CPU is inside the app's workers; no pgbench")
    # BENCH_SYNC_OFF=0 leaves the labelled variant out (before/after runs on a busy machine).
    elif not quick and os.environ.get("BENCH_SYNC_OFF", "1") != "0":
        phases.append(("sync_commit=off", {"PGOPTIONS": "-c synchronous_commit=off"}))
    results: dict[str, Any] = {
        "workers": WORKERS,
        "threads": THREADS,
        "connections": CONNECTIONS,
        "connections_per_worker_cap": PER_WORKER,
        "seconds": seconds,
        "rounds": rounds,
    }
    with tempfile.TemporaryDirectory() as tmpdir:
        for label, extra_env in phases:
            survey = create_open_survey(title_suffix=f" (throughput {time.strftime('%H:%M:%S')})")
            BaselineRow.objects.all().delete()
            phase = _phase(
                label=label,
                survey_slug=survey.slug,
                rounds=rounds,
                seconds=seconds,
                tmp=Path(tmpdir),
                extra_env=extra_env,
            )
            table, summary = _table(phase)
            stored = Submission.objects.filter(survey=survey).count()
            baseline_rows = BaselineRow.objects.filter(note="baseline").count()
            ours_2xx, base_2xx = phase["counted_2xx"]["ours"], phase["counted_2xx"]["baseline"]
            cut = phase["cut_off"]
            check = {
                "submissions_stored": stored,
                "ours_2xx": ours_2xx,
                "ours_cut_off": cut["ours"],
                "baseline_rows_stored": baseline_rows,
                "baseline_2xx": base_2xx,
                "baseline_cut_off": cut["baseline"],
                "exact_after_load": phase["exact"],
            }
            # Under load: every 2xx is stored, and a row beyond them can only come from a request
            # wrk cut off at its deadline (sent, then not waited for). Then an exact check.
            check["ok"] = (
                ours_2xx <= stored - phase["exact"]["rows_added"] <= ours_2xx + cut["ours"]
                and base_2xx <= baseline_rows <= base_2xx + cut["baseline"]
                and phase["exact"]["ok"]
            )
            rss = [v for v in phase["worker_peak_rss_kib"].values() if v]
            print(f"\n### {label}\n\n{table}\n")
            print(
                f"rows stored vs 2xx: {'OK' if check['ok'] else 'MISMATCH'} — under load, "
                f"submissions {stored - phase['exact']['rows_added']} stored for {ours_2xx} 2xx"
                f" (+{cut['ours']} cut off by wrk's stop), baseline rows {baseline_rows} for "
                f"{base_2xx} 2xx (+{cut['baseline']} cut off); after the load "
                f"{phase['exact']['posted']} sequential posts → {phase['exact']['s2xx']} 2xx, "
                f"{phase['exact']['rows_added']} rows"
            )
            print(
                f"gunicorn worker peak RSS (VmHWM): {', '.join(f'{v / 1024:.1f} MiB' for v in rss)}"
            )
            results[label] = {
                "summary": summary,
                "runs": phase["runs"],
                "row_check": check,
                "worker_peak_rss_mib": [round(v / 1024, 1) for v in rss],
            }
            if not check["ok"]:
                raise AssertionError(f"rows stored != 2xx responses: {check}")
    head = results[phases[0][0]]["summary"]
    print(
        f"\nheadline: ours {head['ours']['rps']:,.0f} req/s = "
        f"{head['ours']['rps'] / head['baseline']['rps']:.2f}× the DRF baseline "
        f"(per-round ratios {', '.join(f'{x:.2f}' for x in head['paired_ratios'])}; "
        f"median {head['paired_ratio_median']:.2f}×)"
        + ("" if stack.SQLITE else f", {head['ours']['rps'] / head['pgbench']['rps']:.2f}× pgbench")
    )
    return results


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
