"""The tail's count stays O(k) between VACUUMs (PostgreSQL; bench/RESULTS.md §10, round 11).

Publishing a batch re-writes its rows (``surveys.services.batches._rewrite``), so every
submission leaves one dead entry in each index on the survey's rows until VACUUM removes it.
PostgreSQL planned the tail's count (``… WHERE survey_id = %s AND NOT sealed``, on every
submission) as a *bitmap* scan, and a bitmap scan never marks the dead entries it meets as dead
(a plain index scan does, and later scans skip them): each submission read every dead entry
since the last VACUUM. With autovacuum off (this machine kind's PostgreSQL), the bench's
throughput fell from 614 to 368 req/s within 50 s of load (the table never analyzed: the
planner's guess was the bitmap scan); with autovacuum on, a big survey's submissions could read
up to 20 % of its rows each between two VACUUMs whenever the statistics led to a bitmap scan.
The app's sessions plan no bitmap scans (``deniable/settings/base.py``), so each count marks
what it met, and the next one reads only the entries that died since: about k.

Measured as the index entries the scans return (``pg_stat_user_indexes.idx_tup_read``; an
entry marked dead is skipped, not returned) for one submission after N others.
"""

from __future__ import annotations

import time
import uuid
from datetime import date

import pytest
from django.db import connection
from django.test import override_settings

from surveys.models import Submission
from testsupport import factories
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db(transaction=True)

K = 4
N = 300  # submissions through the real path: N / K batches published, N dead entries per index
BIG = 3000  # published rows already there, so that the planner reads the survey by an index


def _entries_returned() -> int:
    with connection.cursor() as cursor:
        # This backend's counters reach the shared statistics when it next goes idle.
        cursor.execute("SELECT pg_stat_force_next_flush()")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes "
            "WHERE relname = 'surveys_submission'"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _wait_until_no_transaction_sees_the_dead_rows(timeout: float = 120.0) -> None:
    """A scan marks an index entry dead only once no transaction on the *server* can still see
    its row: a snapshot's xmin is computed over every backend, other databases' included. Under
    ``make test`` the other xdist worker's test transactions (a test each, up to tens of
    seconds) held it back, so no entry was marked and one submission read all N (a flake of
    this test, not of the app). Wait until every other backend's snapshot began after the last
    batch was published."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT xid(pg_current_xact_id())::text")  # after every batch's commit
        mark = cursor.fetchone()[0]
        deadline = time.monotonic() + timeout
        while True:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                "AND backend_xmin IS NOT NULL AND age(backend_xmin) >= age(%s::xid)",
                [mark],
            )
            if not cursor.fetchone()[0]:
                return
            if time.monotonic() > deadline:
                pytest.fail(f"another transaction still sees rows older than xid {mark}")
            time.sleep(0.2)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
@pytest.mark.parametrize("analyzed", [False, True], ids=["no-statistics", "analyzed"])
def test_a_submission_reads_about_k_index_entries_however_many_died_before_it(
    require_postgres, alice, analyzed
):
    survey = factories.make_survey(alice)
    Submission.objects.bulk_create(
        [
            Submission(id=uuid.uuid4(), survey=survey, randomizer="browser",
                       submitted_on=date.today(), fingerprint="0" * 64,
                       answers=full_answers(), sealed=True)
            for _ in range(BIG)
        ],
        batch_size=500,
    )  # fmt: skip
    with connection.cursor() as cursor:
        if analyzed:
            cursor.execute("ANALYZE surveys_submission")
        else:  # as on a server whose autovacuum never ran: the planner guesses
            cursor.execute(
                "DELETE FROM pg_statistic WHERE starelid = 'surveys_submission'::regclass"
            )
            cursor.execute(
                "UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 "
                "WHERE oid = 'surveys_submission'::regclass"
            )
        # Whatever this server's autovacuum does, nothing removes the dead entries here.
        cursor.execute("ALTER TABLE surveys_submission SET (autovacuum_enabled = false)")
    try:
        for _ in range(N):
            submit(survey)  # each its own transaction; a batch published every K
        _wait_until_no_transaction_sees_the_dead_rows()
        # This count plans as the app's sessions do: an index scan marks what it meets.
        assert Submission.objects.filter(survey=survey, sealed=False).count() == 0
        before = _entries_returned()
        submit(survey)  # one row into an empty tail: no batch, one count of the tail
        read = _entries_returned() - before
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE surveys_submission RESET (autovacuum_enabled)")
    # Unmarked: the last batch's K rows, and this submission's own. With bitmap scans: ≥ N.
    assert read <= 2 * K, f"one submission read {read} index entries after {N} submissions"
