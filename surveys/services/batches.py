"""Batches: what researchers see changes only k submissions at a time, and a database copy cannot
order submissions or join them to invitations beyond their batch (issue 11, items 1 and 10).

A submission is stored *unsealed*: not in the tallies (so not in estimates, counts or exports),
counted only by response caps and releases. Once a survey has ``DENIABLE_ESTIMATE_BATCH`` (k)
unsealed submissions, :func:`submissions_publish` seals them in ONE transaction:

* their report vectors are summed and added to the tallies — one update per slice for the whole
  batch, so the estimates (page and API), the respondent count and the tally rows' history move
  by sums of ≥ k reports, never by one respondent's;
* the batch's rows are deleted and re-inserted in key order (the client's random uuid4), and the
  used invitations not yet sealed (those spent since the last batch) in digest order (an HMAC:
  random), now sealed. On PostgreSQL every re-written row gets the sealing transaction's id
  (``xmin``) and a new position (``ctid``) in key order, so within a batch neither order nor
  transaction id says who came first, and the "used" marks join only to the whole batch. On
  SQLite the submissions table is WITHOUT ROWID (rows live in key order), and the tail is
  re-written in key order after every submission too (:func:`tail_reorder_sqlite`), so neither
  rows nor the cells' byte offsets in the file carry arrival order.

Every statement reaches only the tail, through the partial indexes ``submission_unsealed`` and
``invitation_used_unsealed``: publishing costs O(k) whatever the survey's size (issue 29).

:func:`submissions_shuffle_tail` re-writes the unsealed tail the same way *without* publishing it
(when a survey closes: its last < k reports stay out of the estimates but lose their order).
What this does not hide — PostgreSQL's dead tuples until VACUUM, its WAL, the tail between
batches — is set out in SECURITY.md ("Arrival order and linkability").
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection, transaction

from deniable.prepared import prepared_cursor
from deniable.sqlite_turn import sqlite_writer_turn
from surveys.collection.tally_layout import submission_slices, submission_vector
from surveys.models import TALLY_SHARDS, Invitation, Submission, Survey
from surveys.selectors.surveys import estimate_batch
from surveys.services.submission_rows import TallyIncrement, survey_tally_layout
from surveys.services.tally_upsert import tallies_upsert
from surveys.webhooks.services import webhooks_batch_published

# The tails, each written twice: as the partial indexes' own predicates (``NOT "sealed"``,
# ``"used"``: SQLite uses a partial index only when the query's WHERE contains the index's terms
# as written, so ``sealed = %s`` alone never reaches ``submission_unsealed``) and as equalities
# (``"sealed" = FALSE``: SQLite finds the tail through the (survey, sealed[, used]) index only by
# an equality on its columns; with ``NOT "sealed"`` alone the embedded database, which has no
# statistics, counted the tail over all the survey's rows on every submission). Whichever index
# the planner takes, the tail is its condition; PostgreSQL reads the pairs as one term.
# SQLite's own statements also name the partial index (``INDEXED BY``): with statistics (an
# ``ANALYZE`` run by hand) that see every row sealed, SQLite judged a scan of the whole table
# cheaper than either index for the equalities. tests/surveys/test_query_plans.py and
# test_query_plans_any_index.py check the plan of every statement of the submission and
# publication paths on both databases, with and without statistics, with each index.
_SUBMISSION_TAIL = '"survey_id" = %s AND "sealed" = FALSE AND NOT "sealed"'
_SUBMISSIONS = '"surveys_submission"'
_INVITATION_TAIL = (
    '"survey_id" = %s AND "sealed" = FALSE AND "used" = TRUE AND "used" AND NOT "sealed"'
)
# The partial tail indexes (``submission_unsealed``, ``invitation_used_unsealed``), by model.
_TAIL_INDEX: dict[type[Submission] | type[Invitation], str] = {
    model: next(index.name for index in model._meta.indexes if index.condition is not None)
    for model in (Submission, Invitation)
}
logger = logging.getLogger(__name__)

# SQLite: rows per multi-row INSERT of the re-write (7 columns: far below its variable limit).
_INSERT_CHUNK = 500


# What sealing sets. A use that waited for its batch while the researcher revoked the rest read as
# revoked (surveys.services.invitations); published with its batch, it reads as used.
_SEALED_VALUES: dict[type[Submission] | type[Invitation], dict[str, bool]] = {
    Submission: {"sealed": True},
    Invitation: {"sealed": True, "revoked": False},
}


def _sealed_value(
    column: str, current: str, *, seal: bool, model: type[Submission] | type[Invitation]
) -> str:
    """The SQL for ``column``'s value in PostgreSQL's re-write (a literal where sealing sets it)."""
    if seal and column in _SEALED_VALUES[model]:
        return "TRUE" if _SEALED_VALUES[model][column] else "FALSE"
    return current


def _answers(raw_rows: Iterable[Any]) -> list[Any]:
    return [json.loads(raw) if isinstance(raw, str | bytes) else raw for raw in raw_rows]


def _rewrite(
    model: type[Submission] | type[Invitation],
    where: str,
    params: list[Any],
    order_by: str,  # a column name
    seal: bool,
) -> list[Any]:
    """Delete the rows matching ``where`` and insert them back in ``order_by`` order, in the
    current transaction, with ``sealed`` set when ``seal``; returns the re-written rows'
    ``answers`` when the model has them (submissions).

    PostgreSQL: one statement, ``WITH moved AS (DELETE … RETURNING *) INSERT … SELECT … FROM
    moved ORDER BY …``, so the set deleted and re-inserted is one and the same even while other
    submissions commit, and no temporary table is created. (A temporary table per batch held a
    lock until the end of the transaction: a long transaction publishing many batches — a bulk
    load, a test — ran out of shared lock memory, "max_locks_per_transaction".)
    SQLite (one writer at a time; the IMMEDIATE transaction holds the write lock): the ≤ k rows
    are read, put in key order here (an ``ORDER BY`` in the SELECT let SQLite's planner, with
    statistics, prefer a scan of the whole key index to sorting the tail), deleted, and inserted
    back by one multi-row INSERT in that order (keys are ASCII hex: Python's order is SQLite's).
    With ``secure_delete`` the old cells are zeroed, and the new ones are allocated in key
    order, so the cells' byte offsets in each page say nothing of arrival (issue 21, item 5)."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    # A concrete field is one with a column (Django's own definition), so none is skipped here.
    columns = [f.column for f in model._meta.concrete_fields if f.column is not None]
    names = ", ".join(qn(c) for c in columns)
    with_answers = model is Submission
    if connection.vendor == "postgresql":
        values = ", ".join(_sealed_value(c, qn(c), seal=seal, model=model) for c in columns)
        returning = f" RETURNING {qn('answers')}" if with_answers else ""
        with prepared_cursor() as cursor:
            cursor.execute(
                f"WITH moved AS (DELETE FROM {table} WHERE {where} RETURNING *) "  # noqa: S608
                f"INSERT INTO {table} ({names}) SELECT {values} FROM moved "
                f"ORDER BY {qn(order_by)}{returning}",
                params,
            )
            return _answers(row[0] for row in cursor.fetchall()) if with_answers else []
    with connection.cursor() as cursor:
        source = f"{table} INDEXED BY {qn(_TAIL_INDEX[model])}"
        cursor.execute(f"SELECT {names} FROM {source} WHERE {where}", params)  # noqa: S608
        key = columns.index(order_by)
        rows = sorted((list(row) for row in cursor.fetchall()), key=lambda row: row[key])
        if not rows:
            return []
        cursor.execute(f"DELETE FROM {source} WHERE {where}", params)  # noqa: S608
        if seal:
            for c, value in _SEALED_VALUES[model].items():
                at = columns.index(c)
                for row in rows:
                    row[at] = value
        marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        for i in range(0, len(rows), _INSERT_CHUNK):
            chunk = rows[i : i + _INSERT_CHUNK]
            cursor.execute(
                f"INSERT INTO {table} ({names}) VALUES {', '.join([marks] * len(chunk))}",  # noqa: S608
                [value for row in chunk for value in row],
            )
    if not with_answers:
        return []
    return _answers(row[columns.index("answers")] for row in rows)


def _rewrite_tail(survey: Survey, *, seal: bool) -> list[Any]:
    """The survey's unsealed submissions in key order, and its used marks not yet sealed in
    digest order; with ``seal`` both become sealed (published)."""
    answers = _rewrite(Submission, _SUBMISSION_TAIL, [survey.pk], "id", seal=seal)
    # Only an invite-only survey spends invitations (its access is frozen once open).
    if survey.access == Survey.Access.INVITE:
        _rewrite(Invitation, _INVITATION_TAIL, [survey.pk], "digest", seal=seal)
    return answers


def tail_reorder_sqlite(*, survey: Survey) -> None:
    """SQLite, after each stored submission, in its transaction: re-write the unpublished tail
    in key order (issue 21, item 5). Cells are allocated at descending byte offsets within a
    page, in insertion order, in the table and in every index (``submission_unsealed``
    included): without this, a copy of the file ordered the tail by arrival. ≤ k − 1 rows plus
    the new one, through the partial indexes."""
    if connection.vendor == "sqlite":
        _rewrite_tail(survey, seal=False)


def _lock(survey: Survey) -> None:
    """One sealer per survey. PostgreSQL: the survey row; SQLite: IMMEDIATE transactions already
    hold the database's write lock. Plain SQL, like :func:`_tail_count`: the ORM's query building
    and model instantiation cost more CPU than the statements themselves (a cProfile of the
    submission path: ≈ 5 ms and 3.5 ms per batch; bench/RESULTS.md).

    The row lock's strength depends on the survey's access (frozen once open):

    * open access: ``FOR NO KEY UPDATE``. It excludes the other sealers and a capped survey's
      submitter (``FOR UPDATE``), but not the ``FOR KEY SHARE`` that each submission's foreign
      key check takes on the survey row when it commits. So submissions keep committing while a
      batch is sealed: with ``FOR UPDATE`` every submitter of the survey waited for the sealing
      transaction, its fsync included, once per batch (bench/RESULTS.md §10, round 10). The
      batch's re-write is ONE statement, so the rows it moves are one set whatever commits
      meanwhile; a row committed after its snapshot stays in the tail.
    * invite-only: ``FOR UPDATE``. Its two re-writes (submissions, then the used invitations)
      must see the same submissions. A submission and its invitation's mark commit together;
      one committing between the two statements would seal the mark with this batch and the
      response with the next, which tells a database copy which batch that invitation's
      response is in."""
    if connection.vendor == "postgresql":
        strength = "FOR UPDATE" if survey.access == Survey.Access.INVITE else "FOR NO KEY UPDATE"
        with prepared_cursor() as cursor:
            cursor.execute(
                f'SELECT 1 FROM "surveys_survey" WHERE "id" = %s {strength}',  # noqa: S608
                [survey.pk],
            )


def _submissions_via_tail_index() -> str:
    """The submissions table as the tail statements name it: on SQLite through the partial
    index ``submission_unsealed`` (``INDEXED BY``; see ``_SUBMISSION_TAIL``)."""
    if connection.vendor == "sqlite":
        return f'{_SUBMISSIONS} INDEXED BY "{_TAIL_INDEX[Submission]}"'
    return _SUBMISSIONS


def _tail_count(survey: Survey) -> int:
    """The survey's unsealed submissions, through ``submission_unsealed`` (as
    ``selectors.unsealed_count``, without the ORM)."""
    source = _submissions_via_tail_index()
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {source} WHERE {_SUBMISSION_TAIL}", [survey.pk])  # noqa: S608
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _batch_increments(survey: Survey, answers: Iterable[Mapping[str, Any]]) -> list[TallyIncrement]:
    """The batch's report vectors summed per slice: one tally update per slice."""
    layout = survey_tally_layout(survey)
    sums: dict[tuple[str, str], list[float]] = {}
    for row in answers:
        vector = submission_vector(layout, row)
        for slice_ in submission_slices(layout, row):
            acc = sums.setdefault(slice_, [0.0] * len(vector))
            for i, value in enumerate(vector):
                acc[i] += value
    shard = secrets.randbelow(TALLY_SHARDS)
    return [
        TallyIncrement(survey_id=survey.pk, shard=shard, slices=[slice_], vector=vector)
        for slice_, vector in sorted(sums.items())
    ]


def submissions_publish(*, survey: Survey, force: bool = False) -> int:
    """Seal and publish the survey's unsealed submissions if there are at least k of them (or
    any, with ``force``: operations only). Returns how many were published."""
    with sqlite_writer_turn(), transaction.atomic():  # SQLite: in turn with the submissions
        _lock(survey)
        return _seal_locked(survey, force=force)


def _seal_locked(survey: Survey, *, force: bool = False) -> int:
    """Under :func:`_lock`: seal the tail if at least k wait (any, with ``force``)."""
    pending = _tail_count(survey)
    if pending == 0 or (pending < estimate_batch() and not force):
        return 0
    answers = _rewrite_tail(survey, seal=True)
    tallies_upsert(*_batch_increments(survey, answers))
    # Webhooks move with the batch, never with a submission (one query if there is none).
    webhooks_batch_published(survey=survey, published=len(answers))
    return len(answers)


# pg_try_advisory_xact_lock's first key: the sealers' turn (the second is the survey's id).
_SEALER_TURN = 0x5EA1
_INT4 = 2**31


def submissions_publish_due(*, survey: Survey) -> int:
    """After a stored submission saw a multiple of k waiting (PostgreSQL, :func:`batch_crossed`),
    or the sweep found k or more: seal them, or return at once if another sealer of the survey
    is at work, instead of queuing behind it to find nothing left.

    Nothing due is left behind by returning: whoever held the sealers' turn counts the tail
    again *after* its commit and seals again if ≥ k wait. A submission that found the turn taken
    committed its row before it looked, so before that holder let go, so that count sees it.
    The turn is an advisory lock that only sealers take; the survey row is still locked as
    :func:`_lock` says (capped submitters, charges and closing wait for it as before).
    Returns how many were published."""
    if connection.vendor != "postgresql" or survey.pk >= _INT4:
        return submissions_publish(survey=survey)
    published = 0
    while True:
        try:
            with transaction.atomic():
                with prepared_cursor() as cursor:
                    cursor.execute(
                        "SELECT pg_try_advisory_xact_lock(%s::int, %s::int)",
                        [_SEALER_TURN, survey.pk],
                    )
                    row = cursor.fetchone()
                if not (row and row[0]):
                    return published  # the holder counts again after its commit
                _lock(survey)
                published += _seal_locked(survey)
        except Exception:
            # Submissions may have skipped their turn while this one held it. Before passing the
            # error on, seal once more the way that waits for the lock, so that a passing
            # failure (a deadlock, a timeout) leaves nothing due behind; if that fails too, the
            # next submission or closing the survey publishes them.
            with contextlib.suppress(Exception):
                submissions_publish(survey=survey)
            raise
        # The turn is free again: what committed while it was held is visible now.
        if _tail_count(survey) < estimate_batch():
            return published


def batch_crossed(pending: int) -> bool:
    """PostgreSQL's one-statement path: whether the submission that saw ``pending`` unpublished
    rows (its own included) publishes — only when ``pending`` is a multiple of k.

    Every submission that saw k or more used to try: all those arriving while a batch was being
    sealed found the sealers' turn taken, each for a transaction of three round trips (BEGIN,
    the turn, COMMIT) — 2.09 transactions per submission under load where 1.2 are needed, a
    fifth of the web workers' CPU (bench/RESULTS.md §10, round 16). A multiple of k is seen by
    about one submission per batch; nothing due is lost by the others' not trying: the sealer
    counts again after its commit and seals again if k wait (:func:`submissions_publish_due`),
    a count that skips the multiple (two submissions committing together, each seeing the same
    tail) is caught at the next one, and beat's sweep publishes what stays
    (:func:`submissions_publish_stranded`). A batch may so hold more than k rows (under load,
    what arrived while the previous one was sealed; 2k and more when a multiple was skipped),
    never fewer than k."""
    k = estimate_batch()
    return pending >= k and pending % k == 0


def submissions_publish_if_due(*, survey: Survey) -> int:
    """After a stored submission: publish when the tail has reached k (cheap count otherwise)."""
    if _tail_count(survey) < estimate_batch():
        return 0
    return submissions_publish_due(survey=survey)


def _stranded_survey_ids() -> list[int]:
    """Surveys whose unpublished tail holds k or more: one scan of the partial index
    ``submission_unsealed`` (only unpublished rows are in it, fewer than k per survey but for a
    stranded batch), whatever the surveys' sizes."""
    source = _submissions_via_tail_index()
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT "survey_id" FROM {source} WHERE "sealed" = FALSE AND NOT "sealed" '  # noqa: S608
            'GROUP BY "survey_id" HAVING count(*) >= %s ORDER BY "survey_id"',
            [estimate_batch()],
        )
        return [int(row[0]) for row in cursor.fetchall()]


def submissions_publish_stranded() -> dict[int, int]:
    """Publish every open survey's batch that came due with no submitter seeing it; returns
    {survey id: rows published}. Periodic (beat, ``DENIABLE_PUBLISH_SWEEP_SECONDS``; embedded
    mode: the researcher's pages, :func:`surveys.services.closing.surveys_sweep_embedded`).

    PostgreSQL's one-statement path counts the tail in its statement's snapshot, which does not
    see submissions committing at the same moment: two that each find k − 2 waiting both see
    k − 1 with their own row, and neither publishes. The next multiple of k would
    (:func:`batch_crossed`); this publishes them when it does not come
    (tests/surveys/services/test_stranded_batches.py). Each survey in its own transaction,
    through :func:`submissions_publish_due` (the sealers' turn, the lock, the count again under
    it), so a survey whose batch a submitter is publishing is left to it."""
    published: dict[int, int] = {}
    for survey_id in _stranded_survey_ids():
        try:
            # Open surveys only: a closed survey's last < k stay out of the estimates for good,
            # also if k is lowered afterwards (its tail was settled, its shuffled file made).
            survey = Survey.objects.filter(pk=survey_id, status=Survey.Status.OPEN).first()
            if survey is not None and (n := submissions_publish_due(survey=survey)):
                published[survey_id] = n
        except SoftTimeLimitExceeded:
            raise  # the task's time is up: the next sweep goes on
        except Exception:  # one survey's failure (logged) leaves the others published
            logger.exception("publishing survey %s's stranded batch failed", survey_id)
    if published:
        logger.info("published %d stranded batch(es)", len(published))
    return published


def submissions_tail_settle(*, survey: Survey) -> int:
    """SQLite, in the transaction that stored submissions (``deniable.sqlite_turn``'s group
    commit): publish the batch if k are waiting, else re-write the tail in key order."""
    if _tail_count(survey) >= estimate_batch():
        return submissions_publish(survey=survey)
    tail_reorder_sqlite(survey=survey)
    return 0


def submissions_shuffle_tail(*, survey: Survey) -> None:
    """Re-write the unsealed tail (and the used invitations) in key order without publishing,
    when the survey closes. A tail of ≥ k is published instead: submissions that commit at the
    same moment each count the tail without the others' rows, so a batch can come due with no
    one seeing it; the next submission would publish it, and after closing there is none."""
    with transaction.atomic():
        _lock(survey)
        if not _seal_locked(survey):
            _rewrite_tail(survey, seal=False)
