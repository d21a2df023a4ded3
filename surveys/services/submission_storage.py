"""Storing a submission: the SQL of the submission hot path.

* the submission row is written by one conditional ``INSERT … SELECT … ON CONFLICT DO NOTHING``:
  only while its survey accepts answers, and only once per id; it is stored *unsealed*, outside
  the tallies, until its batch is published (:mod:`surveys.services.batches`);
* PostgreSQL, open-access surveys without a cap: that one statement, prepared once per
  connection, which also counts the unpublished tail (whether a batch is due);
* otherwise one transaction: an invitation token is consumed with one conditional ``UPDATE``
  (accepted exactly once even under concurrent posts), a response cap is checked under a lock on
  the survey row — a rejected submission leaves no trace; on SQLite the unpublished tail is then
  re-written in key order (``batches.tail_reorder_sqlite``: no arrival order in the file's bytes),
  once per group of submissions committed together (``deniable.sqlite_turn``).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from deniable.errors import Conflict, ErrorCode, InvalidInput
from deniable.sqlite_turn import sqlite_group_commit, sqlite_group_commit_applies
from surveys.models import Invitation, Submission, Survey
from surveys.selectors.surveys import estimate_batch, survey_respondent_count, unsealed_count
from surveys.services.batches import (
    submissions_publish_if_due,
    submissions_tail_settle,
    tail_reorder_sqlite,
)

# PostgreSQL types of the one-statement path's parameters: the statement text is the same for
# every survey (parsed and planned once per connection); slices travel as two arrays.
_SUBMISSION_TYPES = ("uuid", "varchar", "date", "varchar", "jsonb", "bigint", "varchar",
                     "timestamptz")  # fmt: skip


def _submission_insert_sql(types: Sequence[str] | None = None) -> str:
    """INSERT the submission only if its survey still accepts answers and its id is new.

    The survey may come from a per-process cache
    (``surveys.collection.public_survey_cache.survey_get_public_cached``), so
    the authoritative "is it open?" check is this statement's WHERE: closing a survey takes
    effect at once. ``ON CONFLICT DO NOTHING`` replaces the look-up-then-insert (and its
    savepoint): a retried id inserts nothing and is answered by
    ``surveys.services.submissions._existing_outcome``.
    """
    qn = connection.ops.quote_name
    sub, srv = qn(Submission._meta.db_table), qn(Survey._meta.db_table)
    p = [f"%s::{t}" for t in types] if types else ["%s"] * 8
    # PostgreSQL: FOR KEY SHARE, the lock the foreign key's check takes anyway. Without it the
    # WHERE read "open" from the statement's snapshot; an INSERT that then waited for a closing
    # transaction (FOR UPDATE) was stored in the closed survey after its tail was re-written —
    # an unsealed row in arrival order for good, or the k-th row of a batch published after the
    # close. With it, PostgreSQL re-checks the WHERE against the survey row as committed, and
    # the late INSERT stores nothing (answered "closed"). It does not conflict with a sealer's
    # FOR NO KEY UPDATE. SQLite has one writer at a time.
    lock = " FOR KEY SHARE OF s" if connection.vendor == "postgresql" else ""
    return (
        f"INSERT INTO {sub} ({qn('id')}, {qn('survey_id')}, {qn('randomizer')}, "  # noqa: S608
        f"{qn('submitted_on')}, {qn('fingerprint')}, {qn('answers')}) "
        f"SELECT {p[0]}, s.{qn('id')}, {p[1]}, {p[2]}, {p[3]}, {p[4]} FROM {srv} s "
        f"WHERE s.{qn('id')} = {p[5]} AND s.{qn('status')} = {p[6]} "
        f"AND (s.{qn('closes_at')} IS NULL OR s.{qn('closes_at')} > {p[7]}){lock} "
        f"ON CONFLICT ({qn('id')}) DO NOTHING"
    )


def submission_insert_params(
    *,
    sid: uuid.UUID,
    survey: Survey,
    randomizer: str,
    fingerprint: str,
    answers: Mapping[str, Any],
) -> list[Any]:
    ops = connection.ops
    uuid_field = Submission._meta.pk
    return [
        uuid_field.get_db_prep_value(sid, connection),
        randomizer,
        ops.adapt_datefield_value(timezone.localdate()),
        fingerprint,
        Submission._meta.get_field("answers").get_db_prep_value(dict(answers), connection),
        survey.pk,
        Survey.Status.OPEN,
        ops.adapt_datetimefield_value(timezone.now()),
    ]


@functools.cache
def _one_statement_sql() -> str:
    """The conditional INSERT and the survey's unsealed count in one statement: (rows stored,
    unsealed rows *before* it — the count reads the statement's snapshot, which does not see
    the row its own CTE inserts). The count goes through ``submission_unsealed`` (its predicate
    written as the index's)."""
    qn = connection.ops.quote_name
    return (
        f"WITH stored AS ({_submission_insert_sql(_SUBMISSION_TYPES)} RETURNING 1) "  # noqa: S608
        f"SELECT (SELECT count(*) FROM stored), (SELECT count(*) FROM "
        f"{qn(Submission._meta.db_table)} WHERE {qn('survey_id')} = %s::bigint "
        f"AND NOT {qn('sealed')})"
    )


def one_statement_params(submission_params: list[Any]) -> list[Any]:
    """The parameters of :func:`_one_statement_sql`: the insert's, then the survey id again."""
    return [*submission_params, submission_params[5]]


def submission_store_one_statement(*, submission_params: list[Any]) -> int:
    """PostgreSQL, open-access surveys without a cap: the submission row in ONE statement (one
    round trip, an implicit transaction — no BEGIN/SAVEPOINT/COMMIT). Returns the survey's
    unsealed submissions with this one, or 0 if nothing was stored — so the caller knows whether
    a batch is due without a second round trip (issue 24: one statement per submission).

    It runs on a psycopg cursor with server-side binding and ``prepare=True`` (Django's own
    cursors bind client-side): the constant statement is parsed and planned once per connection
    (the connection's ``prepare_threshold`` must not be None, which Django makes it unless told:
    ``deniable/settings/database.py``; tests/deniable/test_prepared.py), and its parameters are sent
    as they are instead of being spliced into the SQL text. Not through
    :func:`deniable.prepared.prepared_cursor`: Django's wrapper costs the hot path CPU for hooks
    only tests use (test_query_plans.py plans this statement explicitly).
    """
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        params = one_statement_params(submission_params)
        cursor.execute(_one_statement_sql(), params, prepare=True)
        row = cursor.fetchone()
        stored, before = (int(row[0]), int(row[1])) if row else (0, 0)
        return before + 1 if stored else 0


def submission_store(
    *,
    survey: Survey,
    submission_params: list[Any],
    digest: str | None,
) -> bool:
    """The general path (invitations, response caps, SQLite): True if stored; False if the
    conditional insert wrote nothing (see the caller). The batch is published once k are waiting.

    On a SQLite file the submission joins the worker's group commit
    (``deniable.sqlite_turn.sqlite_group_commit``): one transaction for the waiting submissions,
    then each survey's tail settled once in it (re-written in key order, or published). Elsewhere
    one transaction, no savepoint; the publication follows in its own."""
    store = functools.partial(_store, survey=survey, submission_params=submission_params,
                              digest=digest)  # fmt: skip
    if sqlite_group_commit_applies():
        return sqlite_group_commit(
            store, key=survey.pk, settle=functools.partial(submissions_tail_settle, survey=survey)
        )
    with transaction.atomic():
        stored = store()
        if stored:
            tail_reorder_sqlite(survey=survey)  # SQLite inside a caller's transaction, or in memory
    if stored:
        submissions_publish_if_due(survey=survey)
    return stored


def _store(*, survey: Survey, submission_params: list[Any], digest: str | None) -> bool:
    """The submission's statements, inside the caller's transaction."""
    if survey.response_cap is not None:
        # Serialize submissions of capped surveys on the survey row (SQLite: the IMMEDIATE
        # transaction already holds the write lock). A retry and a token that cannot be used
        # get their own answers first, full or not: only a submission that would be stored
        # learns that the survey is full (no probe of a spent id or a made-up token reads it).
        Survey.objects.select_for_update().filter(pk=survey.pk).first()
        if Submission.objects.filter(pk=submission_params[0]).exists():
            return False  # the caller answers duplicate (same body) or 409 (another body)
        if digest is not None and not _token_unused(survey, digest):
            _refuse_token(survey, digest)
        if _full(survey):
            raise Conflict(
                _("This survey has reached its number of responses."),
                code=ErrorCode.RESPONSE_CAP_REACHED,
            )
    with connection.cursor() as cursor:
        cursor.execute(_submission_insert_sql(), submission_params)
        if cursor.rowcount != 1:
            return False
    if digest is not None:
        used = Invitation.objects.filter(survey=survey, digest=digest, used=False).update(used=True)
        if used != 1:
            _refuse_token(survey, digest)
    return True


def _token_unused(survey: Survey, digest: str) -> bool:
    return Invitation.objects.filter(survey=survey, digest=digest, used=False).exists()


def _refuse_token(survey: Survey, digest: str) -> None:
    """Raise why the token cannot be used: unknown (400), withdrawn or already used (409)."""
    revoked = (
        Invitation.objects.filter(survey=survey, digest=digest)
        .values_list("revoked", flat=True)
        .first()
    )
    if revoked is None:
        raise InvalidInput.single("token", _("Unknown invitation token."))
    if revoked:
        raise Conflict(
            _("This invitation was withdrawn by the researcher, so it can no longer be used."),
            code=ErrorCode.TOKEN_REVOKED,
        )
    raise Conflict(_("This invitation has already been used."), code=ErrorCode.TOKEN_USED)


def _full(survey: Survey) -> bool:
    """Whether a capped survey takes no more answers, decided by whole batches of k.

    Full once the published respondents reach the cap, or once the unpublished tail holds
    max(cap − published, k). The tail only reaches k as a batch comes due (it is published
    right after), so the answer "full" never changes between two batches: a refusal tells no one
    that a single unpublished submission arrived (a cap of 13 with k = 10 once turned "full" at
    the 13th arrival while 10 were published). The last batch may take the survey up to k − 1
    past its cap (docs/api.md)."""
    assert survey.response_cap is not None
    published = survey_respondent_count(survey=survey)
    if published >= survey.response_cap:
        return True
    return unsealed_count(survey=survey) >= max(survey.response_cap - published, estimate_batch())
