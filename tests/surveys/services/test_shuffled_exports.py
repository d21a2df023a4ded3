"""The shuffled file's one production (issue 27; surveys/services/shuffled_exports.py): only for
a closed survey, once, whatever the concurrency, and gone with the survey."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from audit.models import Entry as AuditEntry
from surveys import services
from surveys.models import ShuffledExport
from tests.surveys.analysis.test_shuffled import BODY, _api, _survey, _url
from testsupport.factories import make_survey, make_user, reload

pytestmark = pytest.mark.django_db


def test_open_survey_is_409_survey_open_and_nothing_is_stored():
    owner = make_user("owner")
    survey = _survey(owner, 5, close=False)
    r = _api(owner).get(_url(survey))
    assert r.status_code == 409
    assert r.json()["error"] == "survey_open"
    draft = make_survey(owner, BODY, open_=False)
    assert _api(owner).get(_url(draft)).json()["error"] == "survey_open"
    assert not ShuffledExport.objects.exists()
    assert not AuditEntry.objects.filter(action="export.download").exists()


def test_a_closed_survey_cannot_reopen_so_the_file_stays_whole():
    """Closed ↔ archived only (surveys.definitions.freeze): the file's reports never change."""
    owner = make_user("owner")
    survey = _survey(owner, 6)
    api = _api(owner)
    first = api.get(_url(survey)).content
    r = api.post(reverse("api-survey-open", args=[survey.slug]))
    assert r.status_code == 409
    services.survey_archive(survey=reload(survey))
    assert api.get(_url(survey)).content == first


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_requests_store_one_file(require_postgres):
    owner = make_user("owner")
    survey = _survey(owner, 40)
    threads_n = 6
    barrier = threading.Barrier(threads_n)
    bodies: list[bytes] = []
    lock = threading.Lock()

    waits: list[str] = []

    def worker() -> None:
        try:
            api = _api(owner)
            barrier.wait()
            r = api.get(_url(survey))
            with lock:
                if r.status_code == 202:  # another request holds the lock, making the file
                    assert r.json()["status"] == "preparing"
                    waits.append(r["Retry-After"])
                else:
                    bodies.append(r.content if r.status_code == 200 else b"%d" % r.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(bodies) + len(waits) == threads_n and bodies
    assert len(set(bodies)) == 1 and bodies[0].startswith(b"{")
    assert all(int(w) > 0 for w in waits)
    assert ShuffledExport.objects.filter(survey=survey).count() == 1
    # Whoever was told to wait gets those same bytes when it asks again.
    assert _api(owner).get(_url(survey)).content == bodies[0]


@pytest.mark.django_db(transaction=True)
def test_a_request_while_the_file_is_being_made_is_202_not_a_held_request(require_postgres):
    """The worker making a large file holds the survey's row lock for seconds (~25 s CPU at 10⁶
    respondents): a download meanwhile is told 202 "preparing" with Retry-After at once (NOWAIT),
    stores nothing and audits no download; after the lock, the file is served."""
    owner = make_user("owner")
    survey = _survey(owner, 7)
    holding, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        from django.db import transaction

        from surveys.models import Survey

        try:
            with transaction.atomic():
                Survey.objects.select_for_update().get(pk=survey.pk)
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert holding.wait(30)
        r = _api(owner).get(_url(survey))
        assert r.status_code == 202, r.content
        assert r.json()["status"] == "preparing" and int(r["Retry-After"]) > 0
        assert not ShuffledExport.objects.exists()
        assert not AuditEntry.objects.filter(action="export.download").exists()
    finally:
        release.set()
        holder.join(30)
    r = _api(owner).get(_url(survey))
    assert r.status_code == 200 and ShuffledExport.objects.filter(survey=survey).count() == 1


def test_embedded_mode_closes_without_making_the_file():
    """Tasks in-process: closing must not wait on the file; the first download makes it."""
    owner = make_user("owner")
    survey = _survey(owner, 4)
    assert services.shuffled_export_enqueue(survey_id=survey.pk) is False
    assert not ShuffledExport.objects.exists()
    assert _api(owner).get(_url(survey)).status_code == 200
    assert ShuffledExport.objects.count() == 1


def test_the_task_body_makes_the_file_once_and_only_when_closed():
    owner = make_user("owner")
    open_survey = _survey(owner, 3, close=False)
    assert services.shuffled_export_produce(survey_id=open_survey.pk) is False
    assert services.shuffled_export_produce(survey_id=10**9) is False  # gone
    closed = _survey(owner, 3)
    assert services.shuffled_export_produce(survey_id=closed.pk) is True
    made = ShuffledExport.objects.get(survey=closed)
    assert services.shuffled_export_produce(survey_id=closed.pk) is False  # redelivered
    assert ShuffledExport.objects.get(survey=closed).json_sha256 == made.json_sha256


def test_deleting_the_survey_deletes_the_file():
    owner = make_user("owner")
    survey = _survey(owner, 3)
    _api(owner).get(_url(survey))
    services.survey_delete(survey=survey, confirm=survey.slug)
    assert not ShuffledExport.objects.exists()


def test_a_lost_race_without_row_locks_serves_the_stored_file(monkeypatch):
    """SQLite has no SELECT … FOR UPDATE: if another request stores its file between our check
    and our insert, the one-to-one constraint refuses ours and the stored one is served (not a
    500). Simulated: the file exists, but both of our checks are made to miss it."""
    from types import SimpleNamespace

    from surveys.services import shuffled_exports

    owner = make_user("owner")
    survey = _survey(owner, 5)
    theirs = services.shuffled_export_get_or_produce(survey=survey)
    real = ShuffledExport.objects
    blind = SimpleNamespace(
        filter=lambda **kw: SimpleNamespace(first=lambda: None), create=real.create, get=real.get
    )
    monkeypatch.setattr(shuffled_exports, "ShuffledExport", SimpleNamespace(objects=blind))
    ours = shuffled_exports.shuffled_export_get_or_produce(survey=survey)
    assert ours.pk == theirs.pk and ours.json_text == theirs.json_text
    assert real.filter(survey=survey).count() == 1
