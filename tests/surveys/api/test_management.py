"""Survey management API (docs/api.md#managing-surveys): custom slug, duplicate, archive,
delete, collaborators and the survey list's new fields, with every 400/403/404/409."""

from __future__ import annotations

import json

import pytest

from privacy.models import LedgerEntry, Release
from surveys import services
from surveys.models import Collaborator, Invitation, Question, Submission, Survey, Tally
from testsupport.factories import (
    api_client,
    make_invitations,
    make_release,
    make_survey,
    make_user,
    submit,
    submit_many,
    survey_body,
)

pytestmark = pytest.mark.django_db
BASE = "/api/v1/surveys/"


def _post(client, url, body=None):
    return client.post(url, json.dumps(body or {}), content_type="application/json")


def _delete(client, url, body=None):
    return client.delete(url, json.dumps(body or {}), content_type="application/json")


def _share(survey, user, role):
    return Collaborator.objects.create(survey=survey, user=user, role=role)


# --- custom slug ---------------------------------------------------------------------------------


def test_create_with_a_custom_slug(api):
    response = api.post(BASE, survey_body(slug="campus-2026"), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["slug"] == "campus-2026"
    assert api.get(f"{BASE}campus-2026/").status_code == 200


@pytest.mark.parametrize(
    "slug",
    ["ab", "x" * 33, "Upper-case", "under_score", "-leading", "trailing-", "new", "spa ce", 7],
)
def test_a_bad_slug_is_a_400_naming_slug(api, slug):
    response = api.post(BASE, survey_body(slug=slug), format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["slug"]
    assert not Survey.objects.exists()


def test_a_taken_slug_is_a_400_naming_slug(api, alice, bob):
    make_survey(bob, slug="taken-one")
    response = api.post(BASE, survey_body(slug="taken-one"), format="json")
    assert response.status_code == 400
    assert "taken" in response.json()["errors"]["slug"][0]


def test_slug_is_editable_while_draft_then_fixed(api, draft, alice):
    response = api.patch(f"{BASE}{draft.slug}/", {"slug": "renamed-draft"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["slug"] == "renamed-draft"
    assert api.get(f"{BASE}{draft.slug}/").status_code == 404  # the old slug is gone
    other = make_survey(alice, open_=False, slug="other-draft")
    taken = api.patch(f"{BASE}renamed-draft/", {"slug": other.slug}, format="json")
    assert taken.status_code == 400 and "slug" in taken.json()["errors"]
    assert _post(api, f"{BASE}renamed-draft/open/").status_code == 200
    fixed = api.patch(f"{BASE}renamed-draft/", {"slug": "too-late"}, format="json")
    assert fixed.status_code == 409
    assert fixed.json()["error"] == "slug_fixed"
    assert "fixed once the survey is open" in fixed.json()["detail"]
    # The same slug again is no change: the usual not-draft refusal.
    same = api.patch(f"{BASE}renamed-draft/", {"slug": "renamed-draft"}, format="json")
    assert same.status_code == 409 and same.json()["error"] == "not_draft"


# --- duplicate -----------------------------------------------------------------------------------


def test_duplicate_copies_questions_designs_and_budget_but_no_data(api, alice):
    survey = make_survey(alice, survey_body(access="invite", budget={"epsilon": 2.5}))
    for token in make_invitations(survey, 4)[:3]:
        submit(survey, token=token)
    response = _post(api, f"{BASE}{survey.slug}/duplicate/")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "draft" and body["slug"] != survey.slug
    assert body["title"] == f"{survey.title} (copy)"
    assert body["budget"]["epsilon"] == 2.5 and body["access"] == "invite"
    assert body["respondents"] == 0 and body["role"] == "owner"
    copy = Survey.objects.get(slug=body["slug"])
    fields = ("key", "text", "kind", "design", "options", "min_value", "max_value", "position")
    original = list(Question.objects.filter(survey=survey).values(*fields))
    assert list(Question.objects.filter(survey=copy).values(*fields)) == original
    assert not Submission.objects.filter(survey=copy).exists()
    assert not Tally.objects.filter(survey=copy).exists()
    assert not Invitation.objects.filter(survey=copy).exists()
    assert body["budget_left"] == 2.5


def test_an_editor_duplicates_into_their_own_draft_a_viewer_cannot(alice, bob, survey):
    carol = make_user("carol")
    _share(survey, bob, "editor")
    _share(survey, carol, "viewer")
    response = _post(api_client(bob), f"{BASE}{survey.slug}/duplicate/")
    assert response.status_code == 201
    assert Survey.objects.get(slug=response.json()["slug"]).owner == bob
    refused = _post(api_client(carol), f"{BASE}{survey.slug}/duplicate/")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    stranger = _post(api_client(make_user("dave")), f"{BASE}{survey.slug}/duplicate/")
    assert stranger.status_code == 404


# --- archive -------------------------------------------------------------------------------------


def test_archive_needs_a_closed_survey_and_hides_it_from_the_list(api, survey):
    refused = _post(api, f"{BASE}{survey.slug}/archive/")
    assert refused.status_code == 409 and refused.json()["error"] == "not_closed"
    services.survey_close(survey=survey)
    response = _post(api, f"{BASE}{survey.slug}/archive/")
    assert response.status_code == 200 and response.json()["status"] == "archived"
    assert [s["slug"] for s in api.get(BASE).json()] == []
    assert [s["slug"] for s in api.get(BASE, {"archived": "true"}).json()] == [survey.slug]
    # Read-only, still readable.
    assert api.get(f"{BASE}{survey.slug}/estimates/").status_code == 200
    again = _post(api, f"{BASE}{survey.slug}/archive/")
    assert again.status_code == 409
    unarchived = _post(api, f"{BASE}{survey.slug}/unarchive/")
    assert unarchived.status_code == 200 and unarchived.json()["status"] == "closed"
    assert _post(api, f"{BASE}{survey.slug}/unarchive/").status_code == 409


def test_an_archived_survey_takes_no_invitations_revocations_or_releases(api, alice):
    survey = make_survey(alice, survey_body(access="invite"))
    services.survey_close(survey=survey)
    services.survey_archive(survey=survey)
    invite = _post(api, f"{BASE}{survey.slug}/invitations/", {"count": 2})
    assert invite.status_code == 409 and invite.json()["error"] == "survey_archived"
    revoke = _post(api, f"{BASE}{survey.slug}/invitations/revoke/")
    assert revoke.status_code == 409
    release = _post(api, f"{BASE}{survey.slug}/releases/", {"mechanism": "laplace", "epsilon": 0.1})
    assert release.status_code == 409 and release.json()["error"] == "survey_archived"
    assert not Release.objects.exists()


def test_only_the_owner_archives(alice, bob, survey):
    services.survey_close(survey=survey)
    _share(survey, bob, "editor")
    response = _post(api_client(bob), f"{BASE}{survey.slug}/archive/")
    assert response.status_code == 403
    survey.refresh_from_db()
    assert survey.status == "closed"


# --- delete --------------------------------------------------------------------------------------


def test_delete_removes_everything_irreversibly(api, alice, bob):
    survey = make_survey(alice, survey_body(access="invite"))
    tokens = make_invitations(survey, 14)
    for token in tokens[:12]:
        submit(survey, token=token)
    _share(survey, bob, "viewer")
    services.survey_close(survey=survey)
    release = make_release(survey, alice, {"mechanism": "laplace", "epsilon": 0.2})
    assert release.status == "done" and LedgerEntry.objects.filter(survey=survey).exists()
    assert tokens
    pk = survey.pk
    response = _delete(api, f"{BASE}{survey.slug}/", {"confirm": survey.slug})
    assert response.status_code == 204
    for model in (Survey, Question, Submission, Tally, Invitation, Collaborator):
        field = "pk" if model is Survey else "survey_id"
        assert not model.objects.filter(**{field: pk}).exists(), model.__name__
    assert not Release.objects.filter(survey_id=pk).exists()
    assert not LedgerEntry.objects.filter(survey_id=pk).exists()
    assert api.get(f"{BASE}{survey.slug}/").status_code == 404
    assert api.get(f"/api/v1/releases/{release.pk}/").status_code == 404


@pytest.mark.parametrize("body", [{}, {"confirm": "wrong"}, {"confirm": None}, {"confirm": 1}])
def test_delete_without_the_typed_slug_is_a_400_naming_confirm(api, draft, body):
    response = _delete(api, f"{BASE}{draft.slug}/", body)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["confirm"]
    assert draft.slug in response.json()["errors"]["confirm"][0]
    assert Survey.objects.filter(pk=draft.pk).exists()


def test_an_open_survey_must_be_closed_before_deletion(api, survey):
    response = _delete(api, f"{BASE}{survey.slug}/", {"confirm": survey.slug})
    assert response.status_code == 409 and response.json()["error"] == "survey_open"
    assert Survey.objects.filter(pk=survey.pk).exists()


def test_only_the_owner_deletes(alice, bob, draft):
    _share(draft, bob, "editor")
    response = _delete(api_client(bob), f"{BASE}{draft.slug}/", {"confirm": draft.slug})
    assert response.status_code == 403
    stranger = _delete(
        api_client(make_user("eve")), f"{BASE}{draft.slug}/", {"confirm": draft.slug}
    )
    assert stranger.status_code == 404
    assert Survey.objects.filter(pk=draft.pk).exists()


# --- collaborators -------------------------------------------------------------------------------


def test_share_list_change_role_and_remove(api, bob, survey):
    url = f"{BASE}{survey.slug}/collaborators/"
    created = _post(api, url, {"username": "bob", "role": "viewer"})
    assert created.status_code == 201
    assert created.json()["username"] == "bob" and created.json()["role"] == "viewer"
    changed = _post(api, url, {"username": "bob", "role": "editor"})
    assert changed.status_code == 200 and changed.json()["role"] == "editor"
    listed = api.get(url).json()
    assert [(c["username"], c["role"]) for c in listed] == [("bob", "editor")]
    assert Collaborator.objects.filter(survey=survey).count() == 1
    assert api.delete(f"{url}bob/").status_code == 204
    assert api.delete(f"{url}bob/").status_code == 404
    assert api.get(url).json() == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "nobody-here", "role": "viewer"}, "username"),
        ({"username": "alice", "role": "viewer"}, "username"),  # the owner
        ({"username": "bob", "role": "owner"}, "role"),
        ({"username": "bob"}, "role"),
        ({"role": "viewer"}, "username"),
    ],
)
def test_bad_shares_are_400s_naming_the_field(api, bob, survey, body, field):
    response = _post(api, f"{BASE}{survey.slug}/collaborators/", body)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    if body.get("username") == "nobody-here":
        assert "nobody-here" in response.json()["errors"]["username"][0]
    assert not Collaborator.objects.exists()


def test_members_read_the_team_only_the_owner_changes_it(alice, bob, survey):
    carol = make_user("carol")
    _share(survey, bob, "editor")
    _share(survey, carol, "viewer")
    url = f"{BASE}{survey.slug}/collaborators/"
    assert api_client(carol).get(url).status_code == 200
    assert _post(api_client(bob), url, {"username": "carol", "role": "editor"}).status_code == 403
    assert api_client(bob).delete(f"{url}carol/").status_code == 403
    assert api_client(make_user("dave")).get(url).status_code == 404
    assert Collaborator.objects.get(user=carol).role == "viewer"


def test_a_viewer_reads_results_but_cannot_spend_the_budget(alice, bob, survey):
    _share(survey, bob, "viewer")
    viewer = api_client(bob)
    for path in ("", "estimates/", "budget/", "releases/", "invitations/", "responses/export/"):
        assert viewer.get(f"{BASE}{survey.slug}/{path}").status_code == 200, path
    body = {"mechanism": "laplace", "epsilon": 0.1}
    refused = _post(viewer, f"{BASE}{survey.slug}/releases/", body)
    assert refused.status_code == 403 and refused.json()["needs"] == "own"
    assert _post(viewer, f"{BASE}{survey.slug}/close/").status_code == 403
    assert not Release.objects.exists()


def test_an_editor_changes_drafts_and_opens_but_cannot_release(alice, bob, draft):
    _share(draft, bob, "editor")
    editor = api_client(bob)
    patched = editor.patch(f"{BASE}{draft.slug}/", {"title": "Edited by bob"}, format="json")
    assert patched.status_code == 200 and patched.json()["role"] == "editor"
    assert _post(editor, f"{BASE}{draft.slug}/open/").status_code == 200
    body = {"mechanism": "laplace", "epsilon": 0.1}
    assert _post(editor, f"{BASE}{draft.slug}/releases/", body).status_code == 403


# --- the list ------------------------------------------------------------------------------------


def test_the_list_has_shared_surveys_with_role_and_budget_left(api, alice, bob):
    own = make_survey(alice, survey_body(title="Alpha"))
    theirs = make_survey(bob, survey_body(title="Bravo"))
    _share(theirs, alice, "viewer")
    submit_many(own, 12, lambda i: None)
    services.survey_close(survey=own)
    make_release(own, alice, {"mechanism": "laplace", "epsilon": 0.25})
    rows = {s["slug"]: s for s in api.get(BASE).json()}
    assert rows[own.slug]["role"] == "owner" and rows[theirs.slug]["role"] == "viewer"
    assert rows[theirs.slug]["owner"] == "bob"
    remaining = api.get(f"{BASE}{own.slug}/budget/").json()["epsilon_remaining"]
    assert rows[own.slug]["budget_left"] == remaining and 0.7 < remaining < 0.76
    assert rows[theirs.slug]["budget_left"] == 1.0
    detail = api.get(f"{BASE}{own.slug}/").json()
    assert rows[own.slug]["respondents"] == detail["respondents"] >= 10


def test_list_ordering(api, alice):
    a = make_survey(alice, survey_body(title="b middle"))
    b = make_survey(alice, survey_body(title="A first"), open_=False)
    c = make_survey(alice, survey_body(title="c last"))
    submit_many(c, 10, lambda i: None)

    def slugs(ordering):
        response = api.get(BASE, {"ordering": ordering})
        assert response.status_code == 200, response.content
        return [s["slug"] for s in response.json()]

    assert slugs("title") == [b.slug, a.slug, c.slug]
    assert slugs("-title") == [c.slug, a.slug, b.slug]
    assert slugs("-created") == [c.slug, b.slug, a.slug]
    assert slugs("created") == [a.slug, b.slug, c.slug]
    assert slugs("status") == [b.slug, c.slug, a.slug]  # draft first, then open (newest first)
    assert slugs("-responses")[0] == c.slug
    assert slugs("budget_left")  # every survey has its whole budget: newest first
    bad = api.get(BASE, {"ordering": "password"})
    assert bad.status_code == 400 and list(bad.json()["errors"]) == ["ordering"]
    bad = api.get(BASE, {"archived": "maybe"})
    assert bad.status_code == 400 and list(bad.json()["errors"]) == ["archived"]
