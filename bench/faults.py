"""Load and faults (issue 6): submissions under load, with Redis and PostgreSQL failing under them.

``python -m bench.faults [--quick]`` builds a PRIVATE stack — a PostgreSQL 15 cluster initdb'd into
a temp dir, a redis-server on a free port, gunicorn (2 workers × 4 threads, ``gunicorn.conf.py``)
and a ``celery worker`` — migrates it, and runs:

1. ``knee``: a concurrency ramp (1, 2, 4, 8, 16) finds the throughput knee, then 60 s at the
   knee: zero 5xx, every 2xx submission stored (rows == 2xx), p99 reported.
2. ``redis``: Redis SIGSTOPped, then SIGKILLed, then restarted, under load, with the per-survey
   limiter ON (it must fail open fast): no 5xx, bounded latency; a release requested during the
   outage stays pending and completes after the restart (the sweeper re-enqueues it).
3. ``postgres``: ``pg_ctl restart -m fast`` under load while a release is mid-computation: errors
   only inside the restart window and only 503 (never 500), all 2xx again within seconds, no
   half-written submission (10 answers each; tallies == a recount from the answers) and no
   half-written release (done, or failed and refunded — never running with a charge).
4. Worker killed mid-release: covered by
   ``tests/integration/test_releases_integration.py::test_sigkill_mid_task_gives_exactly_one_result_and_one_charge``.

Nothing touches the machine's shared PostgreSQL or Redis: every service here is private to the run
and removed at exit (try/finally + atexit). initdb refuses to run as root, so as root the cluster
is created and run as the ``postgres`` OS user through ``runuser``; as any other user it runs as
that user. ``tests/integration/test_faults.py`` runs the same scenarios for a few seconds each in
CI. The functions here are the shared implementation: the scenarios in this module, the private
stack and the load's submissions in ``bench/fault_stack.py``, the database checks and reports in
``bench/fault_checks.py``.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any

from bench.common import execute, markdown_table, parse_args
from bench.fault_checks import (
    in_background,
    integrity,
    release_consistent,
    release_state,
    report,
    request_release,
    row_counts,
    stored_ids,
)
from bench.fault_stack import HOST, LIMITER_ON, Stack, private_stack

# Re-exported: tests/integration/test_faults.py skips when the private stack cannot run.
from bench.fault_stack import unavailable as unavailable
from bench.loadgen import resend
from testsupport.processes import wait_until

NAME = "faults"
DESCRIPTION = "load at the knee; Redis paused/killed and PostgreSQL restarted under load"
RAMP = (1, 2, 4, 8, 16)


# --------------------------------------------------------------------------- scenarios


def scenario_knee(
    stack: Stack, *, step_seconds: float, sustain_seconds: float, ramp: tuple[int, ...] = RAMP
) -> dict[str, Any]:
    """Ramp to find the knee, then sustain it: zero 5xx, rows == 2xx, every 2xx id stored."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT="0")
    slug, _ = stack.survey_create("faults: knee")
    # Warm-up (imports, connections); its rows are checked with the others.
    runs = [stack.load(slug, 2, 1.0, seed=97)]
    steps = []
    for c in ramp:
        result = stack.load(slug, c, step_seconds, seed=c)
        runs.append(result)
        steps.append(result.summary())
    # The knee: the lowest concurrency that no higher step beats by more than 10 % (a global
    # rule, so one noisy step on a shared machine does not stop the ramp early).
    knee = ramp[-1]
    for i, step in enumerate(steps):
        if all(s["throughput_rps"] <= step["throughput_rps"] * 1.10 for s in steps[i + 1 :]):
            knee = step["concurrency"]
            break
    print("\n### 1. Ramp (each step", step_seconds, "s)\n")
    print(
        markdown_table(
            ["concurrency", "requests", "2xx", "5xx", "2xx/s", "p50 ms", "p99 ms"],
            [
                [
                    s["concurrency"],
                    s["requests"],
                    s["2xx"],
                    s["5xx"],
                    s["throughput_rps"],
                    s["p50_ms"],
                    s["p99_ms"],
                ]
                for s in steps
            ],
        )
    )
    print(f"\nknee: concurrency {knee} (no higher step adds > 10 % throughput)")
    sustained = stack.load(slug, knee, sustain_seconds, seed=1000)
    runs.append(sustained)
    summary = sustained.summary()
    rows = row_counts(stack, slug, runs)
    total_5xx = sum(r.summary()["5xx"] for r in runs)
    checks = integrity(stack, slug)
    verdict = (
        total_5xx == 0
        and summary["conn_errors"] == 0
        and summary["requests"] > 0
        and rows["rows_lost"] == 0
        and rows["rows_stored"] == len(rows["acknowledged"])
        and checks["submissions_without_10_answers"] == 0
        and checks["tally_cells_mismatched"] == 0
    )
    extra = {
        "rows_stored": rows["rows_stored"],
        "rows_lost": rows["rows_lost"],
        "2xx over ramp + sustained": len(rows["acknowledged"]),
        "5xx over ramp + sustained": total_5xx,
        "throughput_rps": summary["throughput_rps"],
        **{k: v for k, v in checks.items() if k != "submissions"},
    }
    report(f"1. {sustain_seconds:g} s at the knee (concurrency {knee})", summary, extra, verdict)
    stack.stop_web()
    return {"ramp": steps, "knee": knee, "sustained": summary, **extra, "pass": verdict}


def scenario_redis(
    stack: Stack,
    *,
    concurrency: int,
    before: float,
    paused: float,
    killed: float,
    after: float,
) -> dict[str, Any]:
    """SIGSTOP Redis, then SIGKILL it, then start a new one, all under load (limiter ON)."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT=str(LIMITER_ON))
    stack.start_worker()
    slug, token = stack.survey_create("faults: redis")
    total = before + paused + killed + after
    thread, out = in_background(lambda: stack.load(slug, concurrency, total, seed=2000))
    t0 = time.monotonic()
    time.sleep(before)
    pause_at = time.monotonic()
    stack.redis.pause()
    release_code, release_body, release_seconds = request_release(stack, slug, token)
    release_id = release_body.get("id") if isinstance(release_body, dict) else None
    time.sleep(max(0.0, pause_at + paused - time.monotonic()))
    kill_at = time.monotonic()
    assert stack.redis.process is not None
    stack.redis.process.kill()  # SIGKILL while stopped: the worst end for a hung server
    stack.redis.process.wait(10)
    time.sleep(killed)
    pending_during_outage = release_id is not None and (
        release_state(stack, release_id)["status"] == "pending"
    )
    restart_at = time.monotonic()
    stack.redis.start()  # a fresh, empty redis-server on the same port
    thread.join(total + 60)
    result = out[0]
    # The release: the sweeper (what beat runs every 60 s) re-enqueues it; the worker, which lost
    # its broker, must have reconnected by itself to compute it.
    swept: list[str] = []
    state: dict[str, Any] = {"status": "missing"}
    if release_id:
        wait_until(lambda: bool(swept.extend(stack.sweep()) or release_id in swept), 30, 1.0)
        wait_until(
            lambda: release_state(stack, release_id)["status"] in ("done", "failed"), 90, 0.5
        )
        state = release_state(stack, release_id)
    summary = result.summary()
    # Every request in flight during the pause, including those SIGSTOP caught mid-request.
    in_pause = result.overlapping(pause_at, kill_at).summary()
    in_kill = result.overlapping(kill_at, restart_at).summary()
    rows = row_counts(stack, slug, [result])
    # Bounded: one socket timeout (2 s) per process and back-off window, plus queueing behind it.
    bound_ms = 6000.0
    verdict = (
        summary["5xx"] == 0
        and summary["conn_errors"] == 0
        and summary["4xx"] == 0
        and summary["max_ms"] < bound_ms
        and rows["rows_lost"] == 0
        and rows["rows_stored"] == len(rows["acknowledged"])
        and release_code == 202
        and pending_during_outage
        and state["status"] == "done"
        and state["unrefunded_charges"] == 1
    )
    extra = {
        "rows_stored": rows["rows_stored"],
        "rows_lost": rows["rows_lost"],
        "timeline_s": f"pause {pause_at - t0:.1f}, kill {kill_at - t0:.1f}, "
        f"restart {restart_at - t0:.1f}, end {result.finished - t0:.1f}",
        "paused: requests/2xx/p99_ms/max_ms": f"{in_pause['requests']}/{in_pause['2xx']}/"
        f"{in_pause['p99_ms']}/{in_pause['max_ms']}",
        "killed: requests/2xx/p99_ms": (
            f"{in_kill['requests']}/{in_kill['2xx']}/{in_kill['p99_ms']}"
        ),
        "latency bound_ms": bound_ms,
        "release request during pause": f"{release_code} in {release_seconds:.1f} s",
        "release pending during outage": pending_during_outage,
        "release after restart + sweep": f"{state['status']} (attempts {state.get('attempts')}, "
        f"unrefunded charges {state.get('unrefunded_charges')})",
    }
    report("2. Redis paused (SIGSTOP) then killed under load", summary, extra, verdict)
    stack.stop_worker()
    stack.stop_web()
    return {
        "summary": summary,
        "paused": in_pause,
        "killed": in_kill,
        "release": state,
        **extra,
        "pass": verdict,
    }


def scenario_postgres(
    stack: Stack, *, concurrency: int, before: float, after: float, recovery_grace: float = 3.0
) -> dict[str, Any]:
    """``pg_ctl restart -m fast`` under load while a release holds its row lock mid-compute."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT="0")
    # The task sleeps 3 s holding its row lock just before storing: the restart lands inside it.
    stack.start_worker(DENIABLE_RELEASE_STORE_DELAY="3")
    slug, token = stack.survey_create("faults: postgres")
    stop = threading.Event()
    thread, out = in_background(
        lambda: stack.load(slug, concurrency, before + after + 120, seed=3000, stop=stop)
    )
    t0 = time.monotonic()
    time.sleep(before)
    release_code, release_body, _ = request_release(stack, slug, token)
    release_id = release_body.get("id") if isinstance(release_body, dict) else None
    running = bool(release_id) and wait_until(
        lambda: release_state(stack, release_id)["status"] == "running", 20, 0.05
    )
    begin, end = stack.pg.restart_fast()
    # Run the load for `after` seconds past the restart, whatever the restart took.
    time.sleep(after)
    stop.set()
    thread.join(60)
    result_full = out[0]
    stop_at = result_full.finished
    result = result_full
    summary = result.summary()
    failed = [s for s in result.samples if not s.ok]
    # Errors "inside the window": the request overlapped [restart begin, restart end + grace].
    outside = [s for s in failed if s.end < begin - 0.5 or s.start > end + recovery_grace]
    after_grace = result.window(end + recovery_grace, stop_at).summary()
    recovered = 0 < after_grace["requests"] == after_grace["2xx"]
    last_error_end = max((s.end for s in failed), default=end)
    # A client retries what failed (same submission id and body): stored or duplicate, never lost.
    retry_codes = resend(
        host=HOST,
        port=stack.web_port,
        path=f"/api/v1/surveys/{slug}/responses/",
        bodies=[s.body for s in failed],
    )
    stored = stored_ids(stack, slug)
    acknowledged = {s.submission_id for s in result_full.samples if s.ok}
    retried_ok = {
        s.submission_id for s, code in zip(failed, retry_codes, strict=True) if 200 <= code < 300
    }
    failed_ids = {s.submission_id for s in failed}
    # The release: after the restart and the sweeper it must be done, or failed and refunded.
    swept = stack.sweep() if release_id else []
    state: dict[str, Any] = {"status": "missing"}
    if release_id:
        wait_until(
            lambda: release_state(stack, release_id)["status"] in ("done", "failed"), 60, 0.5
        )
        stack.sweep()  # a second pass must change nothing
        state = release_state(stack, release_id)
    checks = integrity(stack, slug)
    verdict = (
        summary["5xx"] == summary["503"]  # never a 500: only clean 503s
        and not outside
        and recovered
        and not (acknowledged - stored)  # no acknowledged row lost
        and stored <= acknowledged | failed_ids  # nothing appeared from nowhere
        and all(200 <= c < 300 for c in retry_codes)
        and stored == acknowledged | retried_ok
        and checks["submissions_without_10_answers"] == 0
        and checks["tally_cells_mismatched"] == 0
        and release_code == 202
        and running
        and release_consistent(state)
    )
    extra = {
        "rows_stored": len(stored),
        "rows_lost": len(acknowledged - stored),
        "restart window_s": f"{end - begin:.2f} (pg_ctl restart -m fast, {begin - t0:.1f} s in)",
        "error window_s": (
            f"{min(s.end for s in failed) - begin:+.2f} .. {last_error_end - end:+.2f} "
            "(first error answered vs restart begin .. last error answered vs restart end)"
            if failed
            else "no errors"
        ),
        "errors": f"{len(failed)} ({summary['503']} × 503, {summary['5xx'] - summary['503']} "
        f"other 5xx, {summary['conn_errors']} connection errors, {summary['4xx']} 4xx)",
        "errors outside the window": len(outside),
        f"after restart + {recovery_grace:g} s": (
            f"{after_grace['2xx']}/{after_grace['requests']} 2xx"
        ),
        "retried failures": f"{len(retry_codes)} → "
        + (", ".join(f"{c}: {retry_codes.count(c)}" for c in sorted(set(retry_codes))) or "none"),
        "committed before the error (retry said 200 duplicate)": retry_codes.count(200),
        **{k: v for k, v in checks.items() if k != "submissions"},
        "release mid-compute at restart": running,
        "release swept": len(swept),
        "release final": f"{state['status']} (attempts {state.get('attempts')}, results "
        f"{state.get('has_results')}, unrefunded charges {state.get('unrefunded_charges')})",
    }
    report("3. PostgreSQL restarted (pg_ctl restart -m fast) under load", summary, extra, verdict)
    stack.stop_worker()
    stack.stop_web()
    return {"summary": summary, "release": state, "recovered": recovered, **extra, "pass": verdict}


def run(quick: bool) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with private_stack() as stack:
        if quick:
            results["knee"] = scenario_knee(
                stack, step_seconds=1.5, sustain_seconds=5, ramp=RAMP[:4]
            )
            results["redis"] = scenario_redis(
                stack, concurrency=4, before=1.5, paused=3, killed=2, after=3
            )
            results["postgres"] = scenario_postgres(stack, concurrency=4, before=1.5, after=6)
        else:
            results["knee"] = scenario_knee(stack, step_seconds=5, sustain_seconds=60)
            results["redis"] = scenario_redis(
                stack, concurrency=results["knee"]["knee"], before=5, paused=10, killed=10, after=10
            )
            results["postgres"] = scenario_postgres(
                stack, concurrency=results["knee"]["knee"], before=5, after=15
            )
    print(
        "\n4. Worker killed mid-release: tests/integration/test_releases_integration.py::"
        "test_sigkill_mid_task_gives_exactly_one_result_and_one_charge (CI)"
    )
    failed = [name for name, r in results.items() if not r["pass"]]
    print(f"\nfaults: {'ALL PASS' if not failed else 'FAILED: ' + ', '.join(failed)}")
    results["pass"] = not failed
    return results


def main(argv: list[str] | None = None) -> int:
    """:func:`bench.common.main_for`, but the exit status says whether every scenario passed."""
    args = parse_args(argv, DESCRIPTION)
    # SIGTERM (e.g. `timeout`) unwinds like Ctrl-C, so the private services are stopped and the
    # temp dir removed (atexit alone does not run on a signal).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    record = execute(sys.modules[__name__], quick=args.quick)
    return 0 if record.get("results", {}).get("pass", True) else 1


if __name__ == "__main__":
    raise SystemExit(main())
