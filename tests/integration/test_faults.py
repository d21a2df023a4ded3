"""Load and faults, fast (issue 6): the scenarios of ``bench/faults.py`` for a few seconds each.

A PRIVATE stack per module — a PostgreSQL 15 cluster initdb'd into a temp dir (as the ``postgres``
OS user when root, through ``runuser``), a private redis-server, gunicorn (2 workers × 4 threads)
and a ``celery worker`` subprocess — so the faults (SIGSTOP/SIGKILL Redis, ``pg_ctl restart``)
never touch the machine's shared services. The long versions: ``python -m bench.faults``
(results in ``bench/RESULTS.md``). The fourth fault, a worker killed mid-release, is
``test_releases_integration.py::test_sigkill_mid_task_gives_exactly_one_result_and_one_charge``.

Locally these skip when initdb/pg_ctl, runuser or redis-server is missing; in CI they fail.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench import faults
from testsupport.services import require_service

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def stack() -> Iterator[faults.Stack]:
    reason = faults.unavailable()
    require_service(reason is None, f"the private fault stack ({reason})")
    with faults.private_stack() as private:
        yield private


def test_load_at_the_knee_loses_no_submission(stack: faults.Stack) -> None:
    result = faults.scenario_knee(stack, step_seconds=1.0, sustain_seconds=4, ramp=(1, 2, 4))
    sustained = result["sustained"]
    assert sustained["requests"] > 0
    assert sustained["5xx"] == 0 and result["5xx over ramp + sustained"] == 0, result
    assert sustained["conn_errors"] == 0, result
    assert result["rows_lost"] == 0, result
    assert result["rows_stored"] == result["2xx over ramp + sustained"], result
    assert result["submissions_without_10_answers"] == 0, result
    assert result["tally_cells_mismatched"] == 0, result
    assert result["pass"], result


def test_redis_paused_then_killed_under_load(stack: faults.Stack) -> None:
    result = faults.scenario_redis(stack, concurrency=4, before=1.0, paused=3, killed=2, after=2)
    summary = result["summary"]
    assert summary["5xx"] == 0 and summary["conn_errors"] == 0 and summary["4xx"] == 0, result
    # The limiter and cache fail open after one 2 s socket timeout per process.
    assert summary["max_ms"] < result["latency bound_ms"], result
    assert result["paused"]["2xx"] == result["paused"]["requests"] > 0, result
    assert result["rows_lost"] == 0, result
    assert result["release pending during outage"], result
    assert result["release"]["status"] == "done", result
    assert result["release"]["unrefunded_charges"] == 1, result
    assert result["pass"], result


def test_postgres_restarted_under_load(stack: faults.Stack) -> None:
    result = faults.scenario_postgres(stack, concurrency=4, before=1.0, after=5, recovery_grace=2.0)
    summary = result["summary"]
    assert summary["5xx"] == summary["503"], f"a 500 escaped: {result}"
    assert result["errors outside the window"] == 0, result
    # Clean recovery: everything sent 2 s after pg_ctl returned succeeded.
    assert result["recovered"], result
    assert result["rows_lost"] == 0, result
    assert result["submissions_without_10_answers"] == 0, result
    assert result["tally_cells_mismatched"] == 0, result
    assert faults.release_consistent(result["release"]), result
    assert result["pass"], result
