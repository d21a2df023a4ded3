"""Issue 21 item 11 / issue 24 goal 2 — the budget charge inside the lock, before → after.

``.venv/bin/python -m bench.charge_lock [--quick]`` (PostgreSQL; its own database
``deniable_bench_accountant`` unless ``BENCH_DB`` is set, migrated on the fly).

For each ledger — 300 *distinct* tiny-ρ discrete Gaussians (σ ≈ 7·10⁵, the attack), 300 distinct
realistic events (Laplace ε, grid sums, Gaussians with σ and Δ drawn per release), and the
usual 1 / 5 / 20-event ledgers — on a fresh survey in the database, cold (every accountant cache
cleared: a fresh worker) and warm:

* **before**: what the charge did under the survey lock until this change — read the ledger,
  ``epsilon_spent`` before and ``can_afford`` after, with the full-σ discrete-Gaussian lattice
  (``pld_lattice._FAST_MIN_BLOCK = ∞``, the old path). For the tiny-ρ ledger the old path costs
  seconds per distinct event: it is timed on the first ``OLD_SAMPLE`` events and extrapolated
  linearly (marked "≈").
* **after, outside the lock**: ``budget._tight_outside_the_lock`` (snapshot + tight ε), no lock.
* **after, inside the lock**: lock → ``_charge_under_the_lock`` (fingerprint check) → create the
  release, its ledger entry and the stored figure, measured up to the commit (then rolled back,
  so every repetition sees the same ledger); and the two fallbacks when the ledger moved
  meanwhile: the events composed onto the stored state, and (no stored state) recomposed from
  the ledger rows. Median of ``REPEATS``.
"""

from __future__ import annotations

import os
import random  # noqa: TID251 - seeded workload generator for a benchmark, never noise
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("BENCH_DB", "deniable_bench_accountant")

from bench import stack
from bench.common import main_for, markdown_table

NAME = "charge_lock"
DESCRIPTION = "Budget charge inside the lock: 300 distinct tiny-ρ events and usual ledgers"
REPEATS = 7
OLD_SAMPLE = 4


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _tiny(n: int) -> list[Any]:
    from dpcore.central import accounting

    return [accounting.DiscreteGaussianEvent(7e5 + 13.7 * i, 1.0) for i in range(n)]


def _realistic(n: int, seed: int) -> list[list[Any]]:
    """n releases of distinct parameters: histograms (Laplace ε), number questions (grid sums,
    shift K) and Gaussians (σ, Δ ∈ 1…3) — one list of events per release."""
    from dpcore.central import accounting

    rng = random.Random(seed)
    releases: list[list[Any]] = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.4:
            releases.append([accounting.DiscreteLaplaceEvent(rng.uniform(0.05, 0.5))] * 2)
        elif kind < 0.6:
            eps = rng.uniform(0.05, 0.5)
            releases.append(
                [
                    accounting.DiscreteLaplaceEvent(eps),
                    accounting.ShiftedDiscreteLaplaceEvent(eps, rng.choice([11, 101])),
                ]
            )
        else:
            sigma = rng.uniform(3.0, 60.0)
            releases.append(
                [
                    accounting.DiscreteGaussianEvent(sigma * d, float(d))
                    for d in (1, rng.randint(1, 3))
                ]
            )
    return releases


def _clear_caches() -> None:
    from dpcore.central import accounting, pld_lattice, rdp

    accounting._candidates.cache_clear()
    pld_lattice._prepared.cache_clear()
    rdp._event_curve.cache_clear()


def _survey(releases: list[list[Any]]) -> Any:
    from dpcore.central import event_codec
    from privacy.models import LedgerEntry, Release
    from surveys.models import Survey

    owner = stack.bench_owner()
    survey = Survey.objects.create(
        owner=owner, title="charge_lock bench", budget_epsilon=1e6, budget_delta=1e-6
    )
    for events in releases:
        release = Release.objects.create(
            survey=survey,
            mechanism="gaussian",
            noise_scale=1.0,
            l1_sensitivity=1.0,
            l2_sensitivity=1.0,
        )
        LedgerEntry.objects.create(
            survey=survey, release=release, event=event_codec.encode_release(events)
        )
    return survey


class _Rollback(Exception):
    pass


def _in_lock(survey: Any, new: list[Any], outside: Any) -> tuple[float, float, float, float]:
    """Seconds from taking the lock to the charge decision, to the commit (the release, ledger
    and stored-figure writes included; rolled back afterwards), and this thread's CPU seconds
    over the same span (the machine's load inflates wall time, not CPU time)."""
    from django.db import transaction

    from dpcore.central import event_codec
    from privacy.models import LedgerEntry, Release
    from privacy.services import budget, spent
    from privacy.services.lock import lock_survey

    decided = elapsed = cpu = decided_cpu = 0.0
    try:
        with transaction.atomic():
            start = time.perf_counter()
            cpu_start = time.thread_time()
            locked = lock_survey(survey)
            charge = budget._charge_under_the_lock(locked, new, outside, last=True)
            decided = time.perf_counter() - start
            decided_cpu = time.thread_time() - cpu_start
            release = Release.objects.create(
                survey=locked,
                mechanism="gaussian",
                noise_scale=1.0,
                l1_sensitivity=1.0,
                l2_sensitivity=1.0,
            )
            entry = LedgerEntry.objects.create(
                survey=locked, release=release, event=event_codec.encode_release(new)
            )
            n, largest, total = charge.fingerprint
            spent.state_write(
                survey_id=locked.pk,
                fingerprint=(n + 1, max(largest, entry.pk), total + entry.pk),
                delta=locked.budget_delta,
                result=charge.after,
                composed=charge.composed_after,
            )
            elapsed = time.perf_counter() - start
            cpu = time.thread_time() - cpu_start
            raise _Rollback
    except _Rollback:
        pass
    return decided, elapsed, decided_cpu, cpu


def _old_in_lock(survey: Any, new: list[Any]) -> float:
    """The pre-change charge under the lock (full lattices), seconds."""
    from django.db import transaction

    from dpcore.central import accounting
    from privacy.selectors import survey_ledger_events
    from privacy.services.lock import lock_survey

    with transaction.atomic():
        start = time.perf_counter()
        locked = lock_survey(survey)
        before = survey_ledger_events(survey=locked)
        accounting.epsilon_spent(before, locked.budget_delta)
        accounting.can_afford(before, new, locked.budget_epsilon, locked.budget_delta)
        return time.perf_counter() - start


def _median(fn: Callable[[], float], repeats: int, cold: bool) -> float:
    times = []
    for _ in range(repeats):
        if cold:
            _clear_caches()
        times.append(fn())
    return statistics.median(times)


def _medians(
    fn: Callable[[], tuple[float, float, float, float]], repeats: int, cold: bool
) -> tuple[float, float, float, float]:
    runs = []
    for _ in range(repeats):
        if cold:
            _clear_caches()
        runs.append(fn())
    a, b, c, d = (statistics.median(r[i] for r in runs) for i in range(4))
    return a, b, c, d


def _case(
    label: str, releases: list[list[Any]], new: list[Any], repeats: int, old_n: int
) -> dict[str, Any]:
    from dataclasses import replace

    from dpcore.central import pld_lattice
    from privacy.models import BudgetState
    from privacy.services import budget, spent

    survey = _survey(releases)
    try:
        row: dict[str, Any] = {"ledger": label, "events": sum(len(r) for r in releases)}
        # before (old path), on the first old_n releases when the full set would take minutes
        old_survey = survey if old_n >= len(releases) else _survey(releases[:old_n])
        saved = pld_lattice._FAST_MIN_BLOCK
        pld_lattice._FAST_MIN_BLOCK = float("inf")  # type: ignore[assignment]
        try:
            old_repeats = 1 if old_n < len(releases) else repeats
            cold = _median(lambda: _old_in_lock(old_survey, new), old_repeats, cold=True)
            warm = _median(lambda: _old_in_lock(old_survey, new), old_repeats, cold=False)
        finally:
            pld_lattice._FAST_MIN_BLOCK = saved  # type: ignore[assignment]
            _clear_caches()
            if old_survey is not survey:
                old_survey.delete()
        scale = len(releases) / old_n if old_n < len(releases) else 1.0
        row["before_cold_s"], row["before_warm_s"] = cold * scale, warm * scale
        row["before_extrapolated"] = scale != 1.0
        # after: outside the lock (cold and warm), then inside it
        spent.state_refresh(survey=survey)
        row["outside_cold_s"] = _median(
            lambda: _timed(lambda: budget._tight_outside_the_lock(survey, new)), repeats, True
        )
        outside = budget._tight_outside_the_lock(survey, new)
        row["outside_warm_s"] = _median(
            lambda: _timed(lambda: budget._tight_outside_the_lock(survey, new)), repeats, False
        )
        (
            row["lock_decide_s"],
            row["lock_s"],
            row["lock_decide_cpu_s"],
            row["lock_cpu_s"],
        ) = _medians(lambda: _in_lock(survey, new, outside), repeats, cold=True)
        moved = replace(outside, fingerprint=(-1, -1, -1))
        (
            row["moved_decide_s"],
            row["moved_s"],
            row["moved_decide_cpu_s"],
            row["moved_cpu_s"],
        ) = _medians(lambda: _in_lock(survey, new, moved), repeats, cold=True)
        BudgetState.objects.filter(survey=survey).delete()
        (
            row["nostate_decide_s"],
            row["nostate_s"],
            row["nostate_decide_cpu_s"],
            row["nostate_cpu_s"],
        ) = _medians(lambda: _in_lock(survey, new, moved), repeats, cold=True)
        row["method"] = outside.after.method
        return row
    finally:
        survey.delete()


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _pair(r: dict[str, Any], key: str) -> str:
    wall = f"{_ms(r[key + '_decide_s'])} / {_ms(r[key + '_s'])}"
    return f"{wall} ({_ms(r[key + '_decide_cpu_s'])} / {_ms(r[key + '_cpu_s'])})"


def _ms(seconds: float, approx: bool = False) -> str:
    text = f"{seconds * 1000:.1f}" if seconds < 10 else f"{seconds * 1000:.0f}"
    return f"≈ {text}" if approx else text


def run(quick: bool) -> dict[str, Any]:
    from dpcore.central import accounting

    stack.ensure_database()
    stack.django_setup()
    repeats = 3 if quick else REPEATS
    n_big = 40 if quick else 300
    tiny_new = [accounting.DiscreteGaussianEvent(7e5 + 0.5, 1.0)]
    usual_new = _realistic(1, 99)[0]
    cases = [
        (f"{n_big} distinct tiny-ρ DG (σ≈7e5)", [[e] for e in _tiny(n_big)], tiny_new, OLD_SAMPLE),
        (f"{n_big} distinct releases (mixed)", _realistic(n_big, 1), usual_new, n_big),
        ("1 release", _realistic(1, 2), usual_new, 1),
        ("5 releases", _realistic(5, 3), usual_new, 5),
        ("20 releases", _realistic(20, 4), usual_new, 20),
    ]
    rows = [_case(label, rel, new, repeats, min(old, len(rel))) for label, rel, new, old in cases]
    headers = [
        "ledger", "events", "method", "before: in lock, cold", "before: warm",
        "after: outside, cold", "outside, warm", "after: in lock, wall: decide / commit (CPU)",
        "ledger moved, wall (CPU)", "… no stored state, wall (CPU)",
    ]  # fmt: skip
    table = [
        [
            r["ledger"], r["events"], r["method"],
            _ms(r["before_cold_s"], r["before_extrapolated"]),
            _ms(r["before_warm_s"], r["before_extrapolated"]),
            _ms(r["outside_cold_s"]), _ms(r["outside_warm_s"]),
            _pair(r, "lock"), _pair(r, "moved"), _pair(r, "nostate"),
        ]
        for r in rows
    ]  # fmt: skip
    print("### Charge time, ms (median; the 300 tiny-ρ ledger's new release is one more tiny-ρ")
    print("DG, the others' a usual release; the 'before' column's old path under the lock)\n")
    print(markdown_table(headers, table))
    return {"rows": rows}


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
