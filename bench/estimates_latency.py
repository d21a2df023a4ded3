"""Item 2: estimates latency vs data size (10⁴, 10⁵, 10⁶ respondents; quick: 10⁴ only).

Each size is a 10-question bench survey bulk-loaded by :mod:`bench.bulkload` (tallies checked
against the answers with one aggregate query). Per size, interleaved round-robin over the sizes:

* server time in-process: ``survey_get_for_user`` + ``survey_estimates`` (what the endpoint runs);
* ``GET /api/v1/surveys/<slug>/estimates/`` and the dashboard page ``/surveys/<slug>/`` over HTTP
  against gunicorn (1 worker), with a logged-in session cookie.

Goal (issue 5): median at 10⁶ ≤ 1.5× the median at 10⁴, and server time under 50 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
import urllib.request
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "estimates_latency"
DESCRIPTION = "Estimates endpoint + dashboard latency at 10⁴/10⁵/10⁶ respondents (PostgreSQL)"


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _session_cookie() -> str:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(stack.bench_owner())
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _get(url: str, cookie: str) -> float:
    start = time.perf_counter()
    req = urllib.request.Request(url, headers={"Cookie": cookie, "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        resp.read()
        if resp.status != 200:
            raise RuntimeError(f"{url}: HTTP {resp.status}")
    return time.perf_counter() - start


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from bench.bulkload import survey_with
    from surveys import selectors

    sizes = [10_000] if quick else [10_000, 100_000, 1_000_000]
    repeats = 15 if quick else 50
    surveys, checks = {}, {}
    for n in sizes:
        surveys[n], checks[n] = survey_with(n)
    owner = stack.bench_owner()
    cookie = _session_cookie()
    times: dict[tuple[int, str], list[float]] = {
        (n, k): [] for n in sizes for k in ("server", "api", "page")
    }
    with stack.gunicorn(workers=1, threads=1) as (base, _master):
        for n in sizes:  # warm-up: connections, templates, caches of the process
            _get(f"{base}/api/v1/surveys/{surveys[n].slug}/estimates/", cookie)
            _get(f"{base}/surveys/{surveys[n].slug}/", cookie)
        for _ in range(repeats):
            for n in sizes:
                slug = surveys[n].slug
                start = time.perf_counter()
                s = selectors.survey_get_for_user(user=owner, slug=slug, need="view")
                selectors.survey_estimates(survey=s)
                times[(n, "server")].append(time.perf_counter() - start)
                times[(n, "api")].append(_get(f"{base}/api/v1/surveys/{slug}/estimates/", cookie))
                times[(n, "page")].append(_get(f"{base}/surveys/{slug}/", cookie))
    med = {key: statistics.median(v) * 1000 for key, v in times.items()}
    rows = []
    for n in sizes:
        ratio = {k: med[(n, k)] / med[(sizes[0], k)] for k in ("server", "api", "page")}
        rows.append(
            [
                f"{n:,}",
                f"{med[(n, 'server')]:.2f}",
                f"{ratio['server']:.2f}×",
                f"{med[(n, 'api')]:.2f}",
                f"{ratio['api']:.2f}×",
                f"{med[(n, 'page')]:.2f}",
                f"{ratio['page']:.2f}×",
                f"{checks[n]['cells']} cells, {checks[n]['mismatched_cells']} mismatched",
            ]
        )
    print(
        markdown_table(
            [
                "respondents",
                "server ms (in-process)",
                "÷ 10⁴",
                "API ms (HTTP)",
                "÷ 10⁴",
                "dashboard ms (HTTP)",
                "÷ 10⁴",
                "tallies vs answers",
            ],
            rows,
        )
    )
    big, small = sizes[-1], sizes[0]
    goal = {
        "api_ratio": med[(big, "api")] / med[(small, "api")],
        "page_ratio": med[(big, "page")] / med[(small, "page")],
        "server_ms_max": max(med[(n, "server")] for n in sizes),
    }
    goal["met"] = (
        goal["api_ratio"] <= 1.5 and goal["page_ratio"] <= 1.5 and (goal["server_ms_max"] < 50)
    )
    print(f"\nmedians over {repeats} interleaved requests; goal (≤ 1.5×, < 50 ms): {goal}")
    return {
        "repeats": repeats,
        "median_ms": {f"{n}:{k}": v for (n, k), v in med.items()},
        "checks": {str(n): c for n, c in checks.items()},
        "goal": goal,
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
