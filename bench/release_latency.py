"""Items 3 and 6 (worker side): release latency, request → done, with a REAL Celery worker.

A Celery worker subprocess (prefork, concurrency 1) consumes the bench Redis queue
(``BENCH_REDIS_URL``, a database number of its own). Each release is requested through the
product's service (``privacy.services.release_request``: plan, budget charge under the survey
lock, enqueue on commit — what ``POST …/releases/`` runs) on the 10⁶-respondent × 10-question
bench survey (quick: 10⁴), then its row is polled every 5 ms until ``done``. Reported: median of
the runs, alternating Laplace (ε = 1) and Gaussian (ρ = 0.5), and the worker's peak RSS (VmHWM of
the pool process and of the main process) afterwards.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "release_latency"
DESCRIPTION = (
    "Release latency request → done with a real Celery worker + Redis (10⁶ × 10 questions)"
)

REQUESTS = [{"mechanism": "laplace", "epsilon": 1.0}, {"mechanism": "gaussian", "rho": 0.5}]


def unavailable() -> str | None:
    return stack.need(postgres=True, redis=True)


def _one(survey: Any, owner: Any, data: dict[str, Any], timeout: float = 120.0) -> float:
    from privacy import inputs, services
    from privacy.models import Release

    start = time.perf_counter()
    spec = inputs.release_spec(questions=list(survey.questions.all()), data=data)
    release, _ = services.release_request(survey=survey, user=owner, spec=spec)
    while True:
        status = Release.objects.filter(pk=release.pk).values_list("status", flat=True).first()
        if status == Release.Status.DONE:
            return time.perf_counter() - start
        if status == Release.Status.FAILED or time.perf_counter() - start > timeout:
            raise RuntimeError(f"release {release.pk} ended {status!r}")
        time.sleep(0.005)


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    import redis

    from bench.bulkload import survey_with

    n = 10_000 if quick else 1_000_000
    runs = 4 if quick else 10
    survey, check = survey_with(n)
    owner = stack.bench_owner()
    redis.Redis.from_url(stack.REDIS_URL).delete("celery")  # no stale bench tasks
    latencies: dict[str, list[float]] = {r["mechanism"]: [] for r in REQUESTS}
    with stack.celery_worker(concurrency=1) as worker:
        _one(survey, owner, REQUESTS[0])  # warm-up: imports and connections in the pool process
        for i in range(runs):
            data = REQUESTS[i % len(REQUESTS)]
            latencies[data["mechanism"]].append(_one(survey, owner, data))
        rss = {
            "main": stack.proc_status_kib(worker.pid, "VmHWM"),
            **{
                f"pool {pid}": stack.proc_status_kib(pid, "VmHWM")
                for pid in stack.children(worker.pid)
            },
        }
    rows = [
        [
            f"{n:,}",
            mech,
            len(ts),
            f"{statistics.median(ts) * 1000:.1f}",
            f"{min(ts) * 1000:.1f}–{max(ts) * 1000:.1f}",
        ]
        for mech, ts in latencies.items()
    ]
    print(markdown_table(["respondents", "mechanism", "runs", "median ms", "range ms"], rows))
    all_ms = [t * 1000 for ts in latencies.values() for t in ts]
    print(
        f"\nall runs: median {statistics.median(all_ms):.1f} ms; worker peak RSS (VmHWM): "
        + ", ".join(f"{k} {v / 1024:.1f} MiB" for k, v in rss.items() if v)
    )
    return {
        "respondents": n,
        "check": check,
        "latency_ms": {k: [round(t * 1000, 2) for t in v] for k, v in latencies.items()},
        "median_ms": statistics.median(all_ms),
        "worker_peak_rss_mib": {k: round(v / 1024, 1) for k, v in rss.items() if v},
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
