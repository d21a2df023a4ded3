"""XLSForm endpoints attacked from each seat: anonymous, a stranger, a viewer and an editor of
the team, the owner; a form trying to open its survey or to exceed the budget cap; the audit log."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from audit.models import Entry
from surveys import services
from surveys.models import Survey
from tests.surveys.xlsform.support import IMPORT_URL, XLSX, upload, workbook, xform
from testsupport.factories import make_survey, survey_body

pytestmark = pytest.mark.django_db

FORM = {
    "survey": [
        ["type", "name", "label", "required", "deniable::design"],
        ["select_one yes_no", "smoked", "Did you smoke?", "yes", "warner p=0.75"],
    ],
    "choices": [["list_name", "name", "label"], ["yes_no", "yes", "Yes"], ["yes_no", "no", "No"]],
    "settings": [["form_title", "form_id"], ["Attack", "attack-form"]],
}


def test_anonymous_can_neither_import_nor_export(alice):
    survey = make_survey(alice, open_=False)
    anonymous = APIClient()
    assert upload(anonymous, workbook(FORM)).status_code == 401
    assert anonymous.get(f"/api/v1/surveys/{survey.slug}/xlsform/").status_code == 401
    assert not Survey.objects.filter(slug="attack-form").exists()


def test_an_import_is_a_draft_of_the_uploader(api, alice):
    response = upload(api, workbook(FORM))
    assert response.status_code == 201, response.json()
    survey = Survey.objects.get(slug="attack-form")
    assert (survey.owner, survey.status) == (alice, "draft")
    assert Entry.objects.filter(action="survey.create", survey_slug="attack-form").count() == 1


@pytest.mark.parametrize("column", ["status", "deniable::status", "deniable::owner"])
def test_a_form_cannot_open_its_survey_or_choose_its_owner(api, column):
    form = {**FORM, "settings": [[*FORM["settings"][0], column], [*FORM["settings"][1], "open"]]}
    response = upload(api, workbook(form))
    if response.status_code == 201:  # a column of the form engines, not read
        assert Survey.objects.get(slug="attack-form").status == "draft"
    else:
        assert response.status_code == 400
        assert "settings!C2" in response.json()["errors"]


def test_the_budget_cap_holds(api, settings):
    cap = settings.DENIABLE_MAX_BUDGET_EPSILON
    form = {
        **FORM,
        "settings": [
            [*FORM["settings"][0], "deniable::budget_epsilon"],
            [*FORM["settings"][1], cap + 0.001],
        ],
    }
    response = upload(api, workbook(form))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["settings!C2"]
    assert not Survey.objects.filter(slug="attack-form").exists()


def test_a_taken_slug_is_named_by_form_id(api, bob):
    make_survey(bob, open_=False, slug="attack-form")
    response = upload(api, workbook(FORM))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["settings!B2"]


def test_export_follows_the_team_roles(alice, bob, api, bob_api):
    survey = make_survey(alice, survey_body(), open_=False)
    url = f"/api/v1/surveys/{survey.slug}/xlsform/"
    assert bob_api.get(url).status_code == 404  # a stranger learns nothing, not even existence
    services.collaborator_set(survey=survey, username="bob", role="viewer")
    response = bob_api.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX
    assert response["Content-Disposition"] == f'attachment; filename="{survey.slug}.xlsx"'
    assert "<h:title>Every kind</h:title>" in xform(response.content)
    entry = Entry.objects.filter(action="export.download", survey_slug=survey.slug).get()
    assert (entry.actor, entry.detail) == ("bob", {"format": "xlsform"})
    assert api.get(url).status_code == 200


def test_an_open_survey_exports_too(alice, api):
    survey = make_survey(alice, survey_body())
    assert api.get(f"/api/v1/surveys/{survey.slug}/xlsform/").status_code == 200


def test_import_is_post_only(api):
    assert api.get(IMPORT_URL).status_code == 405


def test_asking_for_the_spreadsheet_type_is_not_a_406(alice, api):
    survey = make_survey(alice, survey_body(), open_=False)
    url = f"/api/v1/surveys/{survey.slug}/xlsform/"
    assert api.get(url, HTTP_ACCEPT=XLSX).status_code == 200
    missing = api.get("/api/v1/surveys/no-such-survey/xlsform/", HTTP_ACCEPT=XLSX)
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
