"""The builder's "Import XLSForm" and "Download as XLSForm" (docs/xlsform.md), in English and
Spanish; a refused form leaves nothing and says its cells."""

from __future__ import annotations

import pytest
from django.test import Client

from surveys.models import Survey
from tests.surveys.xlsform.support import XLSX, workbook, xform
from testsupport.factories import make_survey, make_user

pytestmark = pytest.mark.django_db

FORM = {
    "survey": [
        ["type", "name", "label", "constraint"],
        ["integer", "age", "Age?", ". >= 0 and . <= 9"],
    ],
    "settings": [["form_title", "form_id"], ["Paged", "paged-form"]],
}


@pytest.fixture
def carol():
    return make_user("carol", "carol-pw-123")


@pytest.fixture
def browser(carol) -> Client:
    client = Client()
    client.force_login(carol)
    return client


def _file(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("form.xlsx", data, content_type=XLSX)


def test_the_new_survey_page_offers_the_import_in_both_languages(browser, settings):
    assert "Import XLSForm" in browser.get("/surveys/new/").content.decode()
    settings.LANGUAGE_CODE = "es"  # researcher pages speak the site's language
    assert "Importar XLSForm" in browser.get("/surveys/new/").content.decode()


def test_an_import_opens_the_draft_in_the_builder(browser):
    response = browser.post("/surveys/import/", {"file": _file(workbook(FORM))}, follow=True)
    assert response.redirect_chain[-1][0] == "/surveys/paged-form/edit/"
    page = response.content.decode()
    assert "Imported “Paged” as a draft." in page
    assert Survey.objects.get(slug="paged-form").status == "draft"
    assert 'id="download-xlsform"' in page and "Download as XLSForm" in page


def test_a_refused_import_names_its_cells_and_creates_nothing(browser):
    bad = {**FORM, "survey": [FORM["survey"][0], ["integer", "age", "Age?", ". > 0"]]}
    response = browser.post("/surveys/import/", {"file": _file(workbook(bad))}, follow=True)
    assert response.redirect_chain[-1][0] == "/surveys/new/"
    assert "Not imported: survey!D2:" in response.content.decode()
    assert not Survey.objects.exists()
    response = browser.post("/surveys/import/", {}, follow=True)
    assert "Choose an .xlsx file first." in response.content.decode()


def test_the_download_link_serves_the_form_to_the_session(browser, carol):
    survey = make_survey(make_user("dave", "dave-pw-123"), open_=False)
    assert browser.get(f"/api/v1/surveys/{survey.slug}/xlsform/").status_code == 404
    mine = make_survey(carol, open_=False)
    response = browser.get(f"/api/v1/surveys/{mine.slug}/xlsform/")
    assert response.status_code == 200
    xform(response.content)


def test_anonymous_cannot_import():
    response = Client().post("/surveys/import/", {"file": _file(workbook(FORM))})
    assert response.status_code == 302 and "/login" in response["Location"]
    assert not Survey.objects.exists()
