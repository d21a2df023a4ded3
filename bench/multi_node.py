"""Issue 24 goal 3: two gunicorn instances sharing one PostgreSQL and one Redis, load split.

Two independent gunicorn masters (the project's ``gunicorn.conf.py``, bench settings) on two
loopback ports serve the same database ``deniable_bench`` and Redis database: two "nodes" with
nothing shared but those, as behind a load balancer. Each round runs, in rotated order,

* **one node**: wrk against node A alone;
* **two nodes**: one wrk per node at the same time, each with the same connections as above
  (the load split across them: every request goes to exactly one node).

into one open survey (``POST …/responses/``, 10 answers, a fresh uuid4 per request). Reported:
req/s of one node, the sum over two, their ratio per round (paired) and its median; CPU per
request of all gunicorn workers and of the PostgreSQL backends (from /proc). Then the check that
nothing is lost: rows stored = the 2xx of both nodes (+ at most the requests wrk cut off at its
deadline), then 50 sequential posts alternating between the nodes → 50 2xx and 50 rows exactly,
and afterwards the survey's unpublished tail below k and its tallies counting exactly the
published rows (the batches of submissions that arrived through both nodes were published, each
once).

Each node has ``BENCH_NODE_WORKERS`` (default 1) workers × ``BENCH_WEB_THREADS`` (2) threads and
gets ``BENCH_CONNECTIONS`` (workers × threads) connections: one single-worker node can use one
core, so on a machine with ≥ 2 free cores two of them can double it.
``.venv/bin/python -m bench.multi_node [--quick]``
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import statistics
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "multi_node"
DESCRIPTION = "Two gunicorn nodes sharing PostgreSQL and Redis: throughput adds up, nothing lost"

LUA = Path(__file__).resolve().parent / "wrk" / "post_uuid.lua"
WORKERS = int(os.environ.get("BENCH_NODE_WORKERS", "1"))
THREADS = int(os.environ.get("BENCH_WEB_THREADS", "2"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", str(WORKERS * THREADS)))


def unavailable() -> str | None:
    return stack.need(postgres=True, redis=True) or stack.ensure_wrk()


def _wrk_start(base: str, path: str, template: Path, seconds: float, seed: int) -> subprocess.Popen:
    return subprocess.Popen(
        [
            "wrk",
            "-t1",
            f"-c{CONNECTIONS}",
            f"-d{seconds:g}s",
            "--timeout",
            "10s",
            "-s",
            str(LUA),
            base,
            "--",
            path,
            str(template),
            str(seed),  # each wrk its own uuid sequence (bench/wrk/post_uuid.lua)
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wrk_result(proc: subprocess.Popen) -> dict[str, Any]:
    out, err = proc.communicate()
    match = re.search(r"^WRKJSON (\{.*\})$", out, re.MULTILINE)
    if proc.returncode or match is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}):\n{out}\n{err}")
    r = json.loads(match.group(1))
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    return r


def _load(bases: list[str], path: str, template: Path, seconds: float) -> list[dict[str, Any]]:
    """One wrk per base, all at once."""
    procs = [
        _wrk_start(base, path, template, seconds, seed=secrets.randbelow(10**6)) for base in bases
    ]
    return [_wrk_result(p) for p in procs]


def _stored(slug: str) -> int:
    from surveys.models import Submission

    return Submission.objects.filter(survey__slug=slug).count()


def _drain(slug: str) -> int:
    """The row count once the requests wrk cut off have been served (stable for a second)."""
    before, deadline = _stored(slug), time.monotonic() + 15
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _stored(slug)
        if now == before:
            break
        before = now
    return before


def _exact(bases: list[str], path: str, template: Path, n: int = 50) -> dict[str, Any]:
    slug = path.split("/")[4]
    before = _drain(slug)
    ok = 0
    for i in range(n):
        body = template.read_text().replace("{{UUID}}", str(uuid.uuid4())).encode()
        req = urllib.request.Request(
            bases[i % len(bases)] + path, data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            ok += 200 <= resp.status < 300
    added = _stored(slug) - before
    return {"posted": n, "s2xx": ok, "rows_added": added, "ok": ok == added == n}


def _published(slug: str) -> dict[str, int]:
    """The survey's stored, published (sealed) and unpublished submissions, the respondents its
    tallies count, and k."""
    from surveys.models import Submission, Survey
    from surveys.selectors.surveys import estimate_batch, survey_respondent_count, unsealed_count

    survey = Survey.objects.get(slug=slug)
    return {
        "stored": Submission.objects.filter(survey=survey).count(),
        "sealed": Submission.objects.filter(survey=survey, sealed=True).count(),
        "unsealed": unsealed_count(survey=survey),
        "tallied": survey_respondent_count(survey=survey),
        "k": estimate_batch(),
    }


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from bench.fixtures import ANSWERS, create_open_survey

    rounds, seconds = (1, 2.0) if quick else (4, 10.0)  # quick: CI keeps it working
    print(
        f"2 gunicorn nodes × {WORKERS} worker(s) × {THREADS} threads; one wrk -t1 -c{CONNECTIONS}"
        f" per node; {rounds} round(s) × {seconds:g} s per phase; rate limit off"
    )
    survey = create_open_survey(title_suffix=f" (multi-node {time.strftime('%H:%M:%S')})")
    path = f"/api/v1/surveys/{survey.slug}/responses/"
    runs: dict[str, list[dict[str, Any]]] = {"one": [], "two": []}
    counted = cut_off = 0
    with tempfile.TemporaryDirectory() as tmpdir, contextlib.ExitStack() as nodes:
        template = Path(tmpdir) / "ours.json"
        template.write_text(
            json.dumps(
                {"submission_id": "@@", "randomizer": "browser", "answers": ANSWERS}
            ).replace('"@@"', '"{{UUID}}"')
        )
        started = [
            nodes.enter_context(stack.gunicorn(workers=WORKERS, threads=THREADS)) for _ in "AB"
        ]
        bases = [base for base, _ in started]
        masters = [master.pid for _, master in started]
        app = stack.CpuMeter(lambda: [w for m in masters for w in stack.children(m)])
        db = stack.CpuMeter(stack.postgres_backends)
        for r in _load(bases, path, template, 1.0 if quick else 2.0):  # warm-up, both nodes
            counted += r["s2xx"]
            cut_off += r["sent"] - r["requests"]
        for rnd in range(rounds):
            for phase in ("one", "two") if rnd % 2 == 0 else ("two", "one"):
                load0 = stack.loadavg()
                app.start()
                db.start()
                results = _load(bases[:1] if phase == "one" else bases, path, template, seconds)
                app_s, db_s = app.stop(), db.stop()
                requests = sum(r["requests"] for r in results)
                counted += sum(r["s2xx"] for r in results)
                cut_off += sum(r["sent"] - r["requests"] for r in results)
                entry = {
                    "round": rnd,
                    "load": load0,
                    "rps": sum(r["rps"] for r in results),
                    "rps_per_node": [r["rps"] for r in results],
                    "non_2xx": sum(r["requests"] - r["s2xx"] for r in results),
                    "p99_ms": max(r["p99_us"] for r in results) / 1000,
                    "app_cpu_ms": 1000 * app_s / max(1, requests),
                    "db_cpu_ms": 1000 * db_s / max(1, requests),
                }
                runs[phase].append(entry)
                print(
                    f"  round {rnd + 1} {phase} node(s): {entry['rps']:8.1f} req/s "
                    f"({', '.join(f'{x:.1f}' for x in entry['rps_per_node'])}) "
                    f"p99 {entry['p99_ms']:.1f} ms non-2xx {entry['non_2xx']} "
                    f"app {entry['app_cpu_ms']:.2f} db {entry['db_cpu_ms']:.2f} ms/req "
                    f"load {load0:.2f}"
                )
        under_load = _drain(survey.slug)
        exact = _exact(bases, path, template)
    published = _published(survey.slug)
    paired = [t["rps"] / o["rps"] for o, t in zip(runs["one"], runs["two"], strict=True)]
    check = {
        "stored_under_load": under_load,
        "s2xx_under_load": counted,
        "cut_off": cut_off,
        "exact_after_load": exact,
        "published": published,
    }
    check["ok"] = (
        counted <= under_load <= counted + cut_off
        and exact["ok"]
        and published["unsealed"] < published["k"]
        and published["tallied"]
        == published["sealed"]
        == published["stored"] - published["unsealed"]
        and all(e["non_2xx"] == 0 for phase in runs.values() for e in phase)
    )

    def med(phase: str, key: str) -> float:
        return statistics.median(e[key] for e in runs[phase])

    rows = [
        [
            label,
            f"{med(phase, 'rps'):,.1f}",
            ", ".join(f"{e['rps']:,.0f}" for e in runs[phase]),
            f"{med(phase, 'app_cpu_ms'):.2f}",
            f"{med(phase, 'db_cpu_ms'):.2f}",
            f"{med(phase, 'p99_ms'):.1f}",
            sum(e["non_2xx"] for e in runs[phase]),
        ]
        for label, phase in (("one node", "one"), ("two nodes (sum)", "two"))
    ]
    print()
    print(
        markdown_table(
            [
                "candidate",
                "req/s (median)",
                "req/s per round",
                "app CPU ms/req",
                "db CPU ms/req",
                "p99 ms",
                "non-2xx",
            ],
            rows,
        )
    )
    print(
        f"\ntwo nodes ÷ one node, per round: {', '.join(f'{x:.2f}' for x in paired)}; "
        f"median {statistics.median(paired):.2f}×"
    )
    print(
        f"rows stored vs 2xx: {'OK' if check['ok'] else 'MISMATCH'} — under load {under_load} "
        f"stored for {counted} 2xx (+{cut_off} cut off by wrk's stop); then {exact['posted']} "
        f"sequential posts alternating between the nodes → {exact['s2xx']} 2xx, "
        f"{exact['rows_added']} rows; published {published['sealed']} (tallies count "
        f"{published['tallied']}), unpublished tail {published['unsealed']} (k = {published['k']})"
    )
    if not check["ok"]:
        raise AssertionError(f"multi-node check failed: {check}")
    return {
        "workers_per_node": WORKERS,
        "threads": THREADS,
        "connections_per_node": CONNECTIONS,
        "rounds": rounds,
        "seconds": seconds,
        "runs": runs,
        "paired_ratios": [round(x, 3) for x in paired],
        "paired_ratio_median": statistics.median(paired),
        "row_check": check,
    }


if __name__ == "__main__":
    import sys

    raise SystemExit(main_for(sys.modules[__name__]))
