"""Rebuilding a survey's counter vectors from its stored submissions.

Published batches keep the tallies current (``surveys.services.batches``: k submissions at a
time, one upsert statement); a rebuild is for operations (after a restore, a migration or a
bulk load) and for checking that the counters equal a recount. Each submission's shard is
derived from its id here (a batch's publication draws it at random): only the sum over shards
means anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from django.db import connection, transaction

from surveys.collection.tally_layout import tally_layout, tally_recount
from surveys.models import TALLY_SHARDS, Submission, Survey, Tally

CHUNK = 5000


def _stored_answers(
    survey: Survey, progress: Callable[[int], None] | None
) -> Iterator[tuple[Any, Mapping[str, Any]]]:
    # Published (sealed) submissions only: the unsealed tail is outside the tallies until its
    # batch is complete (surveys.services.batches), and a rebuild must not publish it early.
    rows = Submission.objects.filter(survey=survey, sealed=True).values_list("id", "answers")
    done = 0
    for done, row in enumerate(rows.iterator(chunk_size=CHUNK), start=1):
        if progress is not None and done % CHUNK == 0:
            progress(done)
        yield row
    if progress is not None and done % CHUNK:
        progress(done)


def tallies_rebuild(*, survey: Survey, progress: Callable[[int], None] | None = None) -> int:
    """Replace the survey's tallies by a recount of its submissions; the number of rows written.

    On PostgreSQL the tally table is locked in EXCLUSIVE mode first (readers go on; submissions
    wait until it commits): every submission committed before the lock is in the recount, and
    one still in flight adds its increment after the rebuild commits, so none is lost or counted
    twice. On SQLite the first write takes the database's single write lock before the read.
    ``progress`` is called with the number of submissions read so far, every ``CHUNK`` and at
    the end.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                table = connection.ops.quote_name(Tally._meta.db_table)
                cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        # Writing first also takes SQLite's write lock before the submissions are read.
        Tally.objects.filter(survey=survey).delete()
        layout = tally_layout(survey.questions.order_by("position", "id"))
        recount = tally_recount(layout, _stored_answers(survey, progress), TALLY_SHARDS)
        Tally.objects.bulk_create(
            [
                Tally(survey=survey, group_key=gk, group_value=gv, shard=shard, sums=sums)
                for (gk, gv, shard), sums in sorted(recount.items())
            ],
            batch_size=1000,
        )
    return len(recount)
