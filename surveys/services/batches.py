"""Batches: what researchers see changes only k submissions at a time, and a database copy cannot
order submissions or join them to invitations beyond their batch (issue 11, items 1 and 10).

A submission is stored *unsealed*: not in the tallies (so not in estimates, counts or exports),
counted only by response caps and releases. Once a survey has ``DENIABLE_ESTIMATE_BATCH`` (k)
unsealed submissions, :func:`submissions_publish` seals them in ONE transaction:

* their report vectors are summed and added to the tallies — one update per slice for the whole
  batch, so the estimates (page and API), the respondent count and the tally rows' history move
  by sums of ≥ k reports, never by one respondent's;
* the batch's rows are deleted and re-inserted in key order (the client's random uuid4), and the
  survey's used invitations in digest order (an HMAC: random). On PostgreSQL every re-written row
  gets the sealing transaction's id (``xmin``) and a new position (``ctid``) in key order, so
  within a batch neither order nor transaction id says who came first, and the "used" marks join
  only to the whole batch. On SQLite the submissions table is WITHOUT ROWID (rows live in key
  order), so it had no arrival order to begin with.

:func:`submissions_shuffle_tail` re-writes the unsealed tail the same way *without* publishing it
(when a survey closes: its last < k reports stay out of the estimates but lose their order).
What this does not hide — PostgreSQL's dead tuples until VACUUM, its WAL, the tail between
batches — is set out in SECURITY.md ("Arrival order and linkability").
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection, transaction

from surveys.models import TALLY_SHARDS, Invitation, Submission, Survey
from surveys.selectors.surveys import estimate_batch, unsealed_count
from surveys.services.submission_rows import TallyIncrement, survey_tally_layout
from surveys.tally_layout import submission_slices, submission_vector

_TEMP = "deniable_rewrite"


def _answers(raw_rows: Iterable[tuple[Any, ...]]) -> list[Any]:
    return [json.loads(raw) if isinstance(raw, str | bytes) else raw for (raw,) in raw_rows]


def _rewrite(
    model: type[Submission] | type[Invitation],
    where: str,
    params: list[Any],
    order_by: str,
    sealed: bool,
) -> list[Any]:
    """Delete the rows matching ``where`` and insert them back in ``order_by`` order, in the
    current transaction; returns the re-written rows' ``answers`` when ``sealed`` (submissions).

    PostgreSQL: one statement, ``WITH moved AS (DELETE … RETURNING *) INSERT … SELECT … FROM
    moved ORDER BY …``, so the set deleted and re-inserted is one and the same even while other
    submissions commit, and no temporary table is created. (A temporary table per batch held a
    lock until the end of the transaction: a long transaction publishing many batches — a bulk
    load, a test — ran out of shared lock memory, "max_locks_per_transaction".)
    SQLite (one writer at a time): through a temporary table."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    # A concrete field is one with a column (Django's own definition), so none is skipped here.
    columns = [f.column for f in model._meta.concrete_fields if f.column is not None]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            names = ", ".join(qn(c) for c in columns)
            values = ", ".join("TRUE" if sealed and c == "sealed" else qn(c) for c in columns)
            returning = f" RETURNING {qn('answers')}" if sealed else ""
            cursor.execute(
                f"WITH moved AS (DELETE FROM {table} WHERE {where} RETURNING *) "  # noqa: S608
                f"INSERT INTO {table} ({names}) SELECT {values} FROM moved "
                f"ORDER BY {order_by}{returning}",
                params,
            )
            return _answers(cursor.fetchall()) if sealed else []
        cursor.execute(f"DROP TABLE IF EXISTS {_TEMP}")
        create = f"CREATE TEMPORARY TABLE {_TEMP} AS SELECT * FROM {table} WHERE {where}"  # noqa: S608
        cursor.execute(create, params)
        answers: list[Any] = []
        if sealed:
            cursor.execute(f"SELECT {qn('answers')} FROM {_TEMP}")  # noqa: S608
            answers = _answers(cursor.fetchall())
            cursor.execute(f"UPDATE {_TEMP} SET {qn('sealed')} = %s", [True])  # noqa: S608
        cursor.execute(f"DELETE FROM {table} WHERE {qn('id')} IN (SELECT {qn('id')} FROM {_TEMP})")  # noqa: S608
        cursor.execute(f"INSERT INTO {table} SELECT * FROM {_TEMP} ORDER BY {order_by}")  # noqa: S608
        cursor.execute(f"DROP TABLE {_TEMP}")
    return answers


def _publish_uses(survey: Survey, n: int) -> None:
    """Show ``n`` more used invitations as used: the batch's n submissions spent n tokens.

    Which n is not known (nothing links a token to its submission), nor needed: any n of the
    waiting uses, in digest order (an HMAC: random), those already shown as revoked (used before
    a revoke) first. Until now each of them read as unused (the check, the counts), so a token
    turns "used" only with a whole batch (issue 21, items 3–4)."""
    waiting = Invitation.objects.filter(survey=survey, used=True, published=False)
    ids = list(waiting.order_by("-revoked", "digest").values_list("pk", flat=True)[:n])
    Invitation.objects.filter(pk__in=ids).update(published=True, revoked=False)


def _rewrite_tail(survey: Survey, *, seal: bool) -> list[Any]:
    qn = connection.ops.quote_name
    where = f"{qn('survey_id')} = %s AND {qn('sealed')} = %s"
    answers = _rewrite(Submission, where, [survey.pk, False], qn("id"), sealed=seal)
    if seal:
        _publish_uses(survey, len(answers))
    used = f"{qn('survey_id')} = %s AND {qn('used')} = %s"
    _rewrite(Invitation, used, [survey.pk, True], qn("digest"), False)
    return answers


def _lock(survey: Survey) -> None:
    """One sealer per survey. PostgreSQL: the survey row; SQLite: IMMEDIATE transactions already
    hold the database's write lock."""
    if connection.vendor == "postgresql":
        Survey.objects.select_for_update().filter(pk=survey.pk).first()


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
    from surveys.services.submission_storage import tallies_upsert

    k = estimate_batch()
    with transaction.atomic():
        _lock(survey)
        pending = unsealed_count(survey=survey)
        if pending == 0 or (pending < k and not force):
            return 0
        answers = _rewrite_tail(survey, seal=True)
        for increment in _batch_increments(survey, answers):
            tallies_upsert(increment)
    return len(answers)


def submissions_publish_if_due(*, survey: Survey) -> int:
    """After a stored submission: publish when the tail has reached k (cheap count otherwise)."""
    if unsealed_count(survey=survey) < estimate_batch():
        return 0
    return submissions_publish(survey=survey)


def submissions_shuffle_tail(*, survey: Survey) -> None:
    """Re-write the unsealed tail (and the used invitations) in key order without publishing."""
    with transaction.atomic():
        _lock(survey)
        _rewrite_tail(survey, seal=False)
