"""Database checks and reporting of the load-and-faults benchmark (``bench/faults.py``): stored
ids, integrity of submissions and tallies, a release's state and consistency, and the scenario
reports."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from bench.common import markdown_table
from bench.fault_stack import ANSWERED_QUESTIONS, STACK_ESTIMATE_BATCH, Stack
from bench.loadgen import LoadResult

# --------------------------------------------------------------------------- database checks


def stored_ids(stack: Stack, slug: str) -> set[str]:
    rows = stack.pg.query(
        "SELECT s.id::text FROM surveys_submission s JOIN surveys_survey v ON v.id = s.survey_id "
        "WHERE v.slug = %s",
        (slug,),
    )
    return {r[0] for r in rows}


def integrity(stack: Stack, slug: str) -> dict[str, int]:
    """Half-written submissions: each must hold all 10 answers, and the sharded tally vectors
    must equal a recount from the *published* answers (ungrouped and grouped by each category
    question). Submissions are published in batches of k (DENIABLE_ESTIMATE_BATCH, 10 in the
    stack's settings): the unpublished tail must hold fewer than k once beat's stranded-batch
    sweep has run (run here: the stack has no beat), or a batch was not published (counted as a
    mismatch). Submissions committing together can each miss the batch they complete
    (surveys.services.batches.submissions_publish_stranded); how often is reported."""
    stranded = stack.publish_stranded()
    (survey_id,) = stack.pg.query("SELECT id FROM surveys_survey WHERE slug = %s", (slug,))[0]
    rows = stack.pg.query(
        "SELECT answers, sealed FROM surveys_submission WHERE survey_id = %s", (survey_id,)
    )
    all_answers = [a for a, _ in rows]
    submissions = [a for a, sealed in rows if sealed]
    unpublished = len(rows) - len(submissions)
    questions = stack.pg.query(
        "SELECT key, kind, options FROM surveys_question WHERE survey_id = %s "
        "ORDER BY position, id",
        (survey_id,),
    )
    # The slot layout re-derived here from the documentation of surveys.collection.tally_layout (not
    # imported), so this check does not share a bug with the code it checks.
    slots: dict[tuple[str, str], int] = {}
    next_slot = 1
    for key, kind, options in questions:
        values = ["yes", "no"] if kind == "yes_no" else [""] if kind == "number" else options
        for value in values:
            slots[(key, value)] = next_slot
            next_slot += 3 if kind == "number" else 1
    kinds = {key: kind for key, kind, _ in questions}
    expected: dict[tuple[str, str], list[float]] = {}
    for answers in submissions:
        vector = [0.0] * next_slot
        vector[0] = 1.0
        for key, value in answers.items():
            if kinds[key] == "number":
                slot = slots[(key, "")]
                vector[slot : slot + 3] = [1.0, value, value * value]
            else:
                value = ("yes" if value else "no") if kinds[key] == "yes_no" else value
                vector[slots[(key, value)]] = 1.0
        groups = [("", "")] + [(k, answers[k]) for k in answers if kinds[k] == "category"]
        for group in groups:
            total = expected.setdefault(group, [0.0] * next_slot)
            for i, x in enumerate(vector):
                total[i] += x
    actual: dict[tuple[str, str], list[float]] = {}
    for gk, gv, sums in stack.pg.query(
        "SELECT group_key, group_value, sums FROM surveys_tally WHERE survey_id = %s",
        (survey_id,),
    ):
        total = actual.setdefault((gk, gv), [0.0] * next_slot)
        for i, x in enumerate(sums):
            total[i] += x
    zeros = [0.0] * next_slot
    mismatched = sum(
        1
        for group in expected.keys() | actual.keys()
        for e, a in zip(expected.get(group, zeros), actual.get(group, zeros), strict=True)
        if abs(e - a) > 1e-6 * (1 + abs(e))
    )
    mismatched += int(unpublished >= STACK_ESTIMATE_BATCH)
    incomplete = sum(1 for answers in all_answers if len(answers) != ANSWERED_QUESTIONS)
    return {
        "submissions": len(all_answers),
        "unpublished_tail": unpublished,
        "stranded_batches_swept": stranded,
        "submissions_without_10_answers": incomplete,
        "tally_slices": len(actual),
        "tally_cells_mismatched": mismatched,
    }


def release_state(stack: Stack, release_id: str) -> dict[str, Any]:
    rows = stack.pg.query(
        "SELECT status, attempts, results IS NOT NULL FROM privacy_release WHERE id = %s",
        (release_id,),
    )
    status, attempts, has_results = rows[0]
    charges = stack.pg.query(
        "SELECT refunded FROM privacy_ledgerentry WHERE release_id = %s", (release_id,)
    )
    return {
        "status": status,
        "attempts": attempts,
        "has_results": bool(has_results),
        "charges": len(charges),
        "unrefunded_charges": sum(1 for (refunded,) in charges if not refunded),
    }


def release_consistent(state: dict[str, Any]) -> bool:
    """Done with a result and one charge, or failed with every charge refunded."""
    if state["status"] == "done":
        return state["has_results"] and state["unrefunded_charges"] == 1
    if state["status"] == "failed":
        return not state["has_results"] and state["unrefunded_charges"] == 0
    return False


def request_release(stack: Stack, slug: str, token: str) -> tuple[int, Any, float]:
    started = time.monotonic()
    code, body = stack.http(
        "POST", f"/api/v1/surveys/{slug}/releases/", {"mechanism": "laplace", "epsilon": 0.5}, token
    )
    return code, body, time.monotonic() - started


# --------------------------------------------------------------------------- reporting


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def report(title: str, summary: dict[str, Any], extra: dict[str, Any], verdict: bool) -> None:
    keys = ["requests", "2xx", "4xx", "5xx", "503", "conn_errors", "p50_ms", "p99_ms", "max_ms"]
    print(f"\n### {title}\n")
    headers = ["concurrency", "seconds", *keys, "rows stored", "rows lost"]
    row = [summary.get(k, "") for k in ("concurrency", "seconds", *keys)]
    row += [extra.get("rows_stored", ""), extra.get("rows_lost", "")]
    print(markdown_table(headers, [row]))
    details = {k: v for k, v in extra.items() if k not in ("rows_stored", "rows_lost")}
    if details:
        print("\n" + "; ".join(f"{k} = {v}" for k, v in details.items()))
    print(f"\n**verdict: {'PASS' if verdict else 'FAIL'}**")


def in_background(fn: Callable[[], LoadResult]) -> tuple[threading.Thread, list[LoadResult]]:
    out: list[LoadResult] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


def row_counts(stack: Stack, slug: str, results: list[LoadResult]) -> dict[str, Any]:
    acknowledged = {sid for r in results for sid in r.ok_ids}
    stored = stored_ids(stack, slug)
    return {
        "acknowledged": acknowledged,
        "rows_stored": len(stored),
        "rows_lost": len(acknowledged - stored),
        "rows_unacknowledged": len(stored - acknowledged),
    }
