"""The audit log (docs/accounts.md#audit; DESIGN §8.8): every listed action recorded from the
API with who and what, read by the owner (survey) and staff (site) as JSON, CSV and pages, kept
after the survey is deleted, append-only in the database."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import DatabaseError, transaction
from django.test import Client

from audit.models import AppendOnly, Entry
from surveys.models import Survey
from testsupport.factories import api_client, make_user, submit_many, survey_body

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _actions(slug: str) -> list[str]:
    return list(
        Entry.objects.filter(survey_slug=slug).order_by("id").values_list("action", flat=True)
    )


@pytest.fixture
def owner():
    return make_user("olga")


@pytest.fixture
def api(owner):
    return api_client(owner)


def _create(api, **overrides) -> Survey:
    r = api.post(f"{API}/surveys/", survey_body(**overrides), format="json")
    assert r.status_code == 201, r.content
    return Survey.objects.get(slug=r.json()["slug"])


def test_every_listed_action_is_recorded_with_who_and_what(api, owner):
    make_user("vera")
    survey = _create(api, access="invite")
    base = f"{API}/surveys/{survey.slug}/"
    assert (
        api.patch(base, {"budget": {"epsilon": 2.0, "delta": 1e-6}}, format="json").status_code
        == 200
    )
    assert api.post(
        base + "collaborators/", {"username": "vera", "role": "viewer"}, format="json"
    ).status_code in (200, 201)
    assert api.delete(base + "collaborators/vera/").status_code == 204
    assert api.post(base + "open/").status_code == 200
    tokens = api.post(base + "invitations/", {"count": 3}, format="json").json()["tokens"]
    assert api.post(base + "invitations/revoke/").status_code == 200
    assert api.get(base + "responses/export/?format=csv").status_code == 200
    assert api.get(base + "responses/export/?format=json").status_code == 200
    assert api.post(base + "close/").status_code == 200
    assert _actions(survey.slug) == [
        "survey.create", "survey.update", "collaborator.add", "collaborator.remove",
        "survey.open", "invitations.create", "invitations.revoke", "export.download",
        "export.download", "survey.close",
    ]  # fmt: skip
    results = api.get(base + "audit/").json()["results"]
    assert [e["action"] for e in results] == list(reversed(_actions(survey.slug)))  # newest first
    assert {tuple(sorted(e)) for e in results} == {("action", "actor", "at", "detail")}
    assert {e["actor"] for e in results} == {"olga"}
    by_action = {e["action"]: e["detail"] for e in results}
    assert by_action["survey.update"] == {
        "fields": ["budget_delta", "budget_epsilon"], "budget_epsilon": 2.0, "budget_delta": 1e-6
    }  # fmt: skip
    assert by_action["collaborator.add"] == {"username": "vera", "role": "viewer"}
    assert by_action["invitations.create"] == {"count": 3}
    assert by_action["invitations.revoke"] == {"count": 3}
    assert [e["detail"] for e in results if e["action"] == "export.download"] == [
        {"format": "json"}, {"format": "csv"}
    ]  # fmt: skip
    assert not any(t in json.dumps(results) for t in tokens)  # counts, never the tokens


def test_a_refused_call_records_nothing(api):
    survey = _create(api)
    before = _actions(survey.slug)
    assert api.post(f"{API}/surveys/{survey.slug}/close/").status_code == 409  # a draft
    assert api.post(f"{API}/surveys/{survey.slug}/archive/").status_code == 409
    assert _actions(survey.slug) == before


def test_a_release_request_is_recorded_once_per_release(owner, api):
    survey = _create(
        api,
        questions=[{"key": "q", "text": "Q?", "kind": "yes_no"}],
    )
    api.post(f"{API}/surveys/{survey.slug}/open/")
    survey.refresh_from_db()
    submit_many(survey, 20, lambda i: {"q": i % 2 == 0})
    body = {"mechanism": "laplace", "epsilon": 0.5, "request_id": "r1"}
    first = api.post(f"{API}/surveys/{survey.slug}/releases/", body, format="json")
    again = api.post(f"{API}/surveys/{survey.slug}/releases/", body, format="json")
    assert first.status_code == 202 and again.json()["id"] == first.json()["id"]
    entries = Entry.objects.filter(survey_pk=survey.pk, action="release.request")
    assert [
        (e.actor, e.detail["id"], e.detail["mechanism"], e.detail["epsilon"]) for e in entries
    ] == [("olga", first.json()["id"], "laplace", 0.5)]


def test_only_the_owner_reads_a_surveys_log(api):
    survey = _create(api)
    viewer, stranger = make_user("vera"), make_user("sam")
    api.post(
        f"{API}/surveys/{survey.slug}/collaborators/",
        {"username": "vera", "role": "editor"},
        format="json",
    )
    path = f"{API}/surveys/{survey.slug}/audit/"
    assert api_client(viewer).get(path).status_code == 403
    assert api_client(stranger).get(path).status_code == 404
    assert Client().get(path).status_code in (401, 403)
    page = f"/surveys/{survey.slug}/audit/"
    for user, status in ((viewer, 403), (stranger, 404)):
        client = Client()
        client.force_login(user)
        assert client.get(page).status_code == status


def test_the_log_as_csv_and_as_a_page(api, owner):
    survey = _create(api, title="Tricky =1+1")
    r = api.get(f"{API}/surveys/{survey.slug}/audit/?format=csv")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert r["Content-Disposition"] == f'attachment; filename="{survey.slug}-audit.csv"'
    rows = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode(), newline="")))
    assert rows[0] == ["at", "actor", "action", "detail"]
    assert [row[1:] for row in rows[1:]] == [["'olga", "'survey.create", "'{}"]]
    client = Client()
    client.force_login(owner)
    sharing = client.get(f"/surveys/{survey.slug}/sharing/").content.decode()
    assert f'href="/surveys/{survey.slug}/audit/"' in sharing
    page = client.get(f"/surveys/{survey.slug}/audit/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "survey.create" in text and "olga" in text
    assert f'href="{API}/surveys/{survey.slug}/audit/?format=csv"' in text


def test_deleting_a_survey_keeps_its_entries_and_records_the_deletion(api, owner):
    survey = _create(api)
    pk, slug = survey.pk, survey.slug
    r = api.delete(f"{API}/surveys/{slug}/", {"confirm": slug}, format="json")
    assert r.status_code == 204, r.content
    assert not Survey.objects.filter(pk=pk).exists()
    assert list(
        Entry.objects.filter(survey_pk=pk).order_by("id").values_list("action", flat=True)
    ) == ["survey.create", "survey.delete"]
    staff = make_user("stella")
    staff.is_staff = True
    staff.save()
    site = api_client(staff).get(f"{API}/audit/?survey={slug}").json()["results"]
    assert [(e["action"], e["survey"], e["actor"]) for e in site] == [
        ("survey.delete", slug, "olga"), ("survey.create", slug, "olga")
    ]  # fmt: skip
    client = Client()
    client.force_login(staff)
    assert 'href="/audit/"' in client.get("/accounts/").content.decode()
    assert "survey.delete" in client.get("/audit/").content.decode()


def test_the_site_log_is_staff_only(owner):
    assert api_client(owner).get(f"{API}/audit/").status_code == 403
    client = Client()
    client.force_login(owner)
    assert client.get("/audit/").status_code == 403
    assert Client().get("/audit/").status_code == 302  # to the login page


@pytest.mark.both_backends
def test_entries_are_append_only_in_python_and_in_the_database(api):
    survey = _create(api)
    entry = Entry.objects.get(survey_pk=survey.pk)
    entry.action = "survey.open"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(action="survey.open")
    with pytest.raises(DatabaseError), transaction.atomic():
        Entry.objects.filter(pk=entry.pk).delete()
    entry.refresh_from_db()
    assert entry.action == "survey.create"
