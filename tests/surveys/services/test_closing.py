"""Surveys past their closing time are closed (surveys/services/closing.py).

The attack first: a survey whose ``closes_at`` passed refused answers but stayed *open* in the
database, so a PostgreSQL copy kept its unpublished tail in arrival order (each row its own
transaction id) for good, a batch that came due unseen was never published, and its shuffled
file could not be made. Then what the sweep must respect: surveys not yet due, drafts, a closing
time moved later under it, a researcher who closed it first; once a minute in embedded mode.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from audit.models import Entry as AuditEntry
from deniable.settings.base import CELERY_BEAT_SCHEDULE
from surveys import services
from surveys.api.estimates import estimates_body
from surveys.models import Survey
from surveys.services import closing
from testsupport.factories import api_client, make_survey, make_user, submit

K = 4


def _pg_rows(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _past(survey: Survey, seconds: float = 5) -> None:
    """Its closing time passes (set in the database: the API refuses a past one)."""
    Survey.objects.filter(pk=survey.pk).update(
        closes_at=timezone.now() - timedelta(seconds=seconds)
    )


def _open_survey(owner, **extra) -> Survey:
    survey = make_survey(owner, **extra)
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    return survey


@pytest.mark.django_db(transaction=True)
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_database_copy_loses_the_tails_arrival_order_at_the_closing_time(require_postgres):
    owner = make_user("owner")
    survey = _open_survey(owner)
    arrival = sorted((str(uuid.uuid4()) for _ in range(K - 1)), reverse=True)
    for sid in arrival:  # each its own transaction (transactional test): its own xid
        submit(survey, submission_id=sid)
    _past(survey)
    tail = "SELECT id, xmin::text FROM surveys_submission WHERE survey_id = %s ORDER BY ctid"
    # The leak this closes: until closed, one transaction id per row, rows in arrival order.
    before = _pg_rows(tail, [survey.pk])
    assert len({xmin for _, xmin in before}) == K - 1
    assert [str(sid) for sid, _ in before] == arrival
    assert services.surveys_close_due() == [survey.pk]
    after = _pg_rows(tail, [survey.pk])
    assert len({xmin for _, xmin in after}) == 1  # one re-writing transaction
    assert [sid for sid, _ in after] == sorted(sid for sid, _ in after)  # key order
    survey.refresh_from_db()
    assert survey.status == Survey.Status.CLOSED
    assert estimates_body(survey=survey)["respondents"] == 0  # a tail < k stays unpublished


@pytest.mark.both_backends  # make run's SQLite too (CI's SQLite pass)
@pytest.mark.django_db
def test_a_due_batch_nobody_saw_is_published_and_the_shuffled_file_can_be_made():
    owner = make_user("owner")
    survey = _open_survey(owner)
    with override_settings(DENIABLE_ESTIMATE_BATCH=10):
        for _ in range(K):
            submit(survey)  # k reached only under the setting below: as if no one saw it
    url = f"/api/v1/surveys/{survey.slug}/responses/export/shuffled/?format=json"
    _past(survey)
    # The embedded sweep (tests run tasks in-process) has had its turn this minute, so the API
    # view does not close the survey: still "open".
    cache.set("surveys:embedded-sweep", 1, 60)
    assert api_client(owner).get(url).status_code == 409
    with override_settings(DENIABLE_ESTIMATE_BATCH=K):
        assert services.surveys_close_due() == [survey.pk]
        survey.refresh_from_db()
        assert estimates_body(survey=survey)["respondents"] == K
    response = api_client(owner).get(url)
    assert response.status_code == 200, response.content


@pytest.mark.both_backends  # make run's SQLite too (CI's SQLite pass)
@pytest.mark.django_db
def test_only_open_surveys_past_their_closing_time_are_closed_once_by_the_system():
    owner = make_user("owner")
    due = _open_survey(owner)
    later = _open_survey(owner)
    forever = _open_survey(owner)  # no closing time
    draft = make_survey(owner, open_=False)
    closed = _open_survey(owner)
    services.survey_close(survey=closed)
    _past(due)
    _past(draft)
    _past(closed)
    Survey.objects.filter(pk=later.pk).update(closes_at=timezone.now() + timedelta(hours=1))
    assert services.surveys_close_due() == [due.pk]
    assert services.surveys_close_due() == []  # idempotent
    status = dict(Survey.objects.values_list("pk", "status"))
    assert status == {
        due.pk: "closed", later.pk: "open", forever.pk: "open", draft.pk: "draft",
        closed.pk: "closed",
    }  # fmt: skip
    entries = AuditEntry.objects.filter(action="survey.close", survey_pk=due.pk)
    assert [(e.actor_pk, e.actor) for e in entries] == [(None, "")]  # the system, once


@pytest.mark.django_db
def test_the_check_under_the_lock_respects_a_later_closing_time_and_a_closed_survey():
    owner = make_user("owner")
    survey = _open_survey(owner)
    now = timezone.now()
    # Listed as due, then moved an hour later before its row was locked: left open.
    Survey.objects.filter(pk=survey.pk).update(closes_at=now + timedelta(hours=1))
    assert services.survey_close_if_due(survey_id=survey.pk, now=now) is False
    Survey.objects.filter(pk=survey.pk).update(closes_at=now)
    assert services.survey_close_if_due(survey_id=survey.pk, now=now) is True
    assert services.survey_close_if_due(survey_id=survey.pk, now=now) is False  # closed already
    assert services.survey_close_if_due(survey_id=10**9, now=now) is False  # deleted


@pytest.mark.django_db
def test_one_failing_survey_leaves_the_others_closed(monkeypatch):
    owner = make_user("owner")
    first, second = _open_survey(owner), _open_survey(owner)
    _past(first)
    _past(second)
    real = closing.survey_close

    def fail_first(*, survey: Survey) -> Survey:
        if survey.pk == first.pk:
            raise RuntimeError("database blinked")
        return real(survey=survey)

    monkeypatch.setattr(closing, "survey_close", fail_first)
    assert services.surveys_close_due() == [second.pk]
    assert Survey.objects.get(pk=first.pk).status == "open"  # rolled back whole: tried again
    monkeypatch.setattr(closing, "survey_close", real)
    assert services.surveys_close_due() == [first.pk]


@pytest.mark.both_backends  # make run's SQLite too (CI's SQLite pass)
@pytest.mark.django_db
def test_embedded_mode_closes_from_the_researchers_pages_at_most_once_a_minute():
    cache.delete("surveys:embedded-sweep")
    owner = make_user("owner", "owner-pw-123")
    survey = _open_survey(owner)
    _past(survey)
    viewer = make_user("viewer", "viewer-pw-123")  # another researcher, not on its team
    viewing = api_client(viewer)
    viewing.force_login(viewer)
    assert viewing.get("/surveys/").status_code == 200  # the list page sweeps
    assert Survey.objects.get(pk=survey.pk).status == "closed"
    # The entry is the system's, not the viewer's (nor does the owner's log name the viewer).
    entry = AuditEntry.objects.get(action="survey.close", survey_pk=survey.pk)
    assert (entry.actor_pk, entry.actor) == (None, "")
    client = api_client(owner)
    client.force_login(owner)
    other = _open_survey(owner)
    _past(other)
    assert client.get(f"/surveys/{other.slug}/").status_code == 200  # within the minute
    assert Survey.objects.get(pk=other.pk).status == "open"
    cache.delete("surveys:embedded-sweep")  # a minute later
    assert client.get(f"/surveys/{other.slug}/").status_code == 200
    assert Survey.objects.get(pk=other.pk).status == "closed"


@pytest.mark.django_db
def test_with_a_broker_the_pages_leave_it_to_beat(monkeypatch):
    from celery import current_app

    cache.delete("surveys:embedded-sweep")
    survey = _open_survey(make_user("owner"))
    _past(survey)
    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    assert services.surveys_sweep_embedded() == []
    assert Survey.objects.get(pk=survey.pk).status == "open"


def test_beat_schedules_the_sweep_every_minute():
    from deniable.celery import app

    entry = CELERY_BEAT_SCHEDULE["surveys-close-due"]
    assert entry["task"] in app.tasks
    assert entry["schedule"] == 60.0
