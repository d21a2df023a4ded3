"""Nothing stored links a response to its invitation or to its arrival order (issue 11, item 1),
and what researchers see moves k submissions at a time (item 10).

* No stored value is derived from the token: the fingerprint is a function of the survey, the
  randomizer and the reported answers only; retries are still idempotent and a token is still
  spent once.
* A database copy: on SQLite the submissions table has no rowid and rows sit in key order; on
  PostgreSQL a batch's rows share one ``xmin`` and sit (``ctid``) in key order, and every used
  invitation carries the latest batch's ``xmin`` — no join to one response, no arrival order.
* Estimates, counts and exports change only by whole batches of k (``DENIABLE_ESTIMATE_BATCH``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from pathlib import Path

import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from deniable.errors import Conflict
from surveys import selectors, services
from surveys.analysis.export import export_csv
from surveys.api.estimates import estimates_body
from surveys.models import Invitation, Submission, Survey
from surveys.services.invitations import invitation_digest
from testsupport import factories
from testsupport.factories import full_answers, submit, survey_body

K = 4


def _descending_ids(n: int) -> list[str]:
    """uuid4s that arrive in *descending* key order, so key order ≠ arrival order."""
    return sorted((str(uuid.uuid4()) for _ in range(n)), reverse=True)


def _invite_survey(owner, **extra) -> Survey:
    s = factories.make_survey(owner, survey_body(access="invite", **extra))
    s.refresh_from_db()
    return s


# --- no value derived from the token ------------------------------------------------------------


@pytest.mark.django_db
def test_no_stored_value_is_derived_from_the_token(alice) -> None:
    survey = _invite_survey(alice)
    tokens = factories.invitations_create(survey=survey, count=3)
    for token in tokens:
        assert submit(survey, token=token).status == "accepted"
    digests = {invitation_digest(t) for t in tokens}
    for row in Submission.objects.filter(survey=survey):
        # The fingerprint is a function of what the row itself says, nothing else...
        canonical = json.dumps(
            {"survey": survey.pk, "randomizer": row.randomizer, "answers": row.answers},
            sort_keys=True,
            separators=(",", ":"),
        )
        assert row.fingerprint == hashlib.sha256(canonical.encode()).hexdigest()
        # ...and the old construction (digest hashed with the answers) names no invitation.
        for digest in digests:
            linked = json.dumps(
                {
                    "survey": survey.pk,
                    "randomizer": row.randomizer,
                    "token": digest,
                    "answers": row.answers,
                },
                sort_keys=True,
                separators=(",", ":"),
            )
            assert row.fingerprint != hashlib.sha256(linked.encode()).hexdigest()
        stored = json.dumps(
            [str(v) for v in Submission.objects.filter(pk=row.pk).values()[0].values()]
        )
        for token in tokens:
            assert token not in stored and invitation_digest(token) not in stored


@pytest.mark.django_db
def test_retries_stay_idempotent_and_a_token_is_spent_once(alice) -> None:
    survey = _invite_survey(alice)
    (token,) = factories.invitations_create(survey=survey, count=1)
    sid = str(uuid.uuid4())
    assert submit(survey, token=token, submission_id=sid).status == "accepted"
    # The client's retry (same id, same body) after a lost answer: nothing new is written.
    assert submit(survey, token=token, submission_id=sid).status == "duplicate"
    with pytest.raises(Conflict) as other_body:
        submit(survey, full_answers(coin=False), token=token, submission_id=sid)
    assert other_body.value.code == "duplicate_conflict"
    # The same token with a new submission id is refused: the token was spent.
    with pytest.raises(Conflict) as reuse:
        submit(survey, token=token)
    assert reuse.value.code == "token_used"
    assert Submission.objects.filter(survey=survey).count() == 1


# --- batches ------------------------------------------------------------------------------------


@pytest.mark.django_db
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_estimates_counts_and_exports_move_only_by_whole_batches(survey) -> None:
    before = estimates_body(survey=survey)
    assert before["estimate_batch"] == K
    for i in range(K - 1):
        submit(survey)
        now = estimates_body(survey=survey)
        # One submission (or any < k) changes nothing a researcher can read.
        assert now == before, i
        assert selectors.survey_respondent_count(survey=survey) == 0
        assert len(list(export_csv(survey))) == len(list(export_csv(survey)))
    rows_before = "".join(export_csv(survey)).count("\n")
    submit(survey)  # the k-th: the batch is published at once
    after = estimates_body(survey=survey)
    assert after["respondents"] == K
    assert "".join(export_csv(survey)).count("\n") == rows_before + K
    assert not Submission.objects.filter(survey=survey, sealed=False).exists()


@pytest.mark.django_db
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_cap_counts_the_unpublished_tail_by_whole_batches(alice) -> None:
    """Cap 3, k = 4: the tail counts, but only once it is a batch. Refusing the 4th submission
    while none was published told anyone probing the survey that 3 had arrived
    (tests/surveys/services/test_cap_by_batches.py); the survey now takes the whole batch."""
    s = factories.survey_create(owner=alice, data=survey_body(response_cap=3))
    services.survey_open(survey=s)
    s.refresh_from_db()
    for _ in range(K):
        assert submit(s).status == "accepted"
    assert estimates_body(survey=s)["respondents"] == K
    with pytest.raises(Conflict) as full:
        submit(s)
    assert full.value.code == "response_cap_reached"


@pytest.mark.django_db
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_closing_keeps_the_tail_out_of_estimates(survey) -> None:
    # Releases leave it out too: tests/privacy/test_release_published_only.py.
    for _ in range(K + 2):
        submit(survey)
    services.survey_close(survey=survey)
    survey.refresh_from_db()
    assert estimates_body(survey=survey)["respondents"] == K
    counts = selectors.survey_counts(survey=survey, include_unsealed=True)
    assert counts.respondents == K + 2
    assert counts.cells[""]["coin"]["yes"] == K + 2


# --- a database copy: SQLite --------------------------------------------------------------------


@pytest.mark.sqlite_only  # PostgreSQL: test_postgres_copy_*
@pytest.mark.django_db
def test_sqlite_submissions_table_has_no_rowid() -> None:
    assert connection.vendor == "sqlite"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s",
            [Submission._meta.db_table],
        )
        (create,) = cursor.fetchone()
        assert create.rstrip().upper().endswith("WITHOUT ROWID"), create
        with pytest.raises(OperationalError):
            cursor.execute(f"SELECT rowid FROM {Submission._meta.db_table}")


@pytest.mark.sqlite_only
@pytest.mark.django_db(transaction=True)  # the copy is taken outside any open transaction
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_sqlite_copy_holds_no_arrival_order(alice, tmp_path: Path) -> None:
    assert connection.vendor == "sqlite"
    survey = _invite_survey(alice)
    tokens = factories.invitations_create(survey=survey, count=2 * K + 1)
    arrival = _descending_ids(2 * K + 1)
    for sid, token in zip(arrival, tokens, strict=True):
        submit(survey, token=token, submission_id=sid)
    # A page-level copy of the database, as a thief would take it.
    copy_path = tmp_path / "copy.sqlite3"
    connection.ensure_connection()
    with sqlite3.connect(copy_path) as copy:
        connection.connection.backup(copy)
    copy = sqlite3.connect(copy_path)
    table = Submission._meta.db_table
    with pytest.raises(sqlite3.OperationalError):
        copy.execute(f"SELECT rowid FROM {table}")
    physical = [uuid.UUID(r[0]) for r in copy.execute(f"SELECT id FROM {table}")]
    # The rows sit in key order, whatever the order they arrived in (here: the reverse).
    assert physical == sorted(uuid.UUID(s) for s in arrival)
    assert physical != [uuid.UUID(s) for s in arrival]
    copy.close()


# --- a database copy: PostgreSQL ----------------------------------------------------------------


def _pg_rows(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_postgres_copy_neither_orders_submissions_nor_joins_used_marks(
    require_postgres, alice
) -> None:
    survey = _invite_survey(alice)
    tokens = factories.invitations_create(survey=survey, count=2 * K)
    arrival = _descending_ids(2 * K)
    for sid, token in zip(arrival, tokens, strict=True):
        # Each submission is its own transaction (transactional test): its own xid.
        submit(survey, token=token, submission_id=sid)
    subs = _pg_rows(
        "SELECT id, xmin::text, ctid FROM surveys_submission WHERE survey_id = %s ORDER BY ctid",
        [survey.pk],
    )
    used = _pg_rows(
        "SELECT xmin::text, digest FROM surveys_invitation WHERE survey_id = %s AND used "
        "ORDER BY ctid",
        [survey.pk],
    )
    assert len(subs) == 2 * K and len(used) == 2 * K
    by_xmin: dict[str, list[uuid.UUID]] = {}
    for sid, xmin, _ in subs:
        by_xmin.setdefault(xmin, []).append(sid)
    # Two batches: each shares ONE transaction id, so xmin orders batches, never respondents.
    assert sorted(len(v) for v in by_xmin.values()) == [K, K]
    # Physical order (ctid) is key order within each batch, not arrival order.
    for ids in by_xmin.values():
        assert ids == sorted(ids)
    assert [s[0] for s in subs] != [uuid.UUID(s) for s in arrival]
    # Each used mark carries its batch's xid, k marks per batch, in digest order: a mark joins
    # to its whole batch of k responses, never to one. (Until issue 29 every batch re-wrote
    # every used mark of the survey, so all carried the latest batch's xid — at O(n) per batch.)
    marks: dict[str, list[str]] = {}
    for xmin, digest in used:
        marks.setdefault(xmin, []).append(digest)
    assert set(marks) <= set(by_xmin)
    assert sorted(len(v) for v in marks.values()) == [K, K]
    for digests in marks.values():
        assert digests == sorted(digests)
    # Tally rows were written by the batches' transactions only.
    tally_xmins = {
        x
        for (x,) in _pg_rows(
            "SELECT xmin::text FROM surveys_tally WHERE survey_id = %s", [survey.pk]
        )
    }
    assert tally_xmins <= set(by_xmin)
    Invitation.objects.filter(survey=survey).delete()


@pytest.mark.django_db
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_the_dashboard_says_estimates_move_in_batches(alice, survey) -> None:
    from django.test import Client
    from django.urls import reverse

    client = Client()
    client.force_login(alice)
    submit(survey)
    page = client.get(reverse("survey-detail", args=[survey.slug])).content.decode()
    assert f"updated in batches of {K} responses" in page
    assert f"Up to {K - 1} of the latest" in page
    # True on PostgreSQL under load too: a batch whose multiple of k was skipped waits for the
    # next one or beat's sweep (surveys.services.batches.batch_crossed).
    words = " ".join(page.split())
    later = "when many arrive at once, more may wait, until the next batch or for at most a minute."
    assert later in words
    # The count shown is the published one: the single submission is not on the page yet.
    assert '<strong id="respondent-count">0</strong>' in page
