"""Import of forms written by hand the way Kobo's docs show them, and of forms with mistakes:
every problem named by its cell in one 400, nothing created."""

from __future__ import annotations

import pytest

from surveys.models import Survey
from tests.surveys.xlsform.support import upload, workbook, xform

pytestmark = pytest.mark.django_db

EN, ES = "label::English (en)", "label::Español (es)"


def kobo_form() -> dict[str, list[list[object]]]:
    """A Kobo-style form: a shared yes_no list, labels in two languages, a hint, ${var} skip
    logic, TRUE typed as an Excel boolean, choice names typed as numbers."""
    return {
        "survey": [
            [
                "type",
                "name",
                EN,
                ES,
                "hint::English (en)",
                "hint::Español (es)",
                "required",
                "relevant",
                "constraint",
                "deniable::design",
            ],
            [
                "select_one yes_no",
                "smoker",
                "Do you smoke?",
                "¿Fuma?",
                "",
                "",
                True,
                "",
                "",
                "forced_response p_truth=0.5 p_yes=0.25 p_no=0.25",
            ],
            [
                "select_one region",
                "region",
                "Where do you live?",
                "¿Dónde vive?",
                "",
                "",
                "yes",
                "",
                "",
                "",
            ],
            [
                "integer",
                "age",
                "How old are you?",
                "¿Qué edad tiene?",
                "In years",
                "En años",
                "no",
                "${region} = 'north' or selected(${region}, 'south')",
                ". >= 18 and . <= 99",
                "",
            ],
            [
                "select_one agree",
                "trust",
                "Do you trust the police?",
                "¿Confía en la policía?",
                "",
                "",
                "yes",
                "",
                "",
                "k_rr epsilon=2",
            ],
            [
                "select_one yes_no",
                "worked",
                "Did you work last week?",
                "¿Trabajó?",
                "",
                "",
                "yes",
                "",
                "",
                "",
            ],
        ],
        "choices": [
            ["list_name", "name", EN, ES],
            ["yes_no", "yes", "Yes", "Sí"],
            ["yes_no", "no", "No", "No"],
            ["region", "north", "North", "Norte"],
            ["region", "south", "South", "Sur"],
            ["agree", 1, "Not at all", "Nada"],
            ["agree", 2, "Somewhat", "Algo"],
            ["agree", 3, "Fully", "Del todo"],
        ],
        "settings": [
            ["form_title", "form_id", "default_language", "version"],
            ["Health pilot", "health-pilot", "English (en)", "2024010101"],
        ],
    }


def test_a_kobo_style_form_imports(api):
    data = workbook(kobo_form())
    xform(data)  # the hand-written fixture is a valid XLSForm in the first place
    response = upload(api, data)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["slug"], body["title"], body["status"]) == (
        "health-pilot",
        "Health pilot",
        "draft",
    )
    assert body["languages"] == ["en", "es"]
    q = {question["key"]: question for question in body["questions"]}
    assert q["smoker"]["kind"] == "yes_no" and q["smoker"]["required"] is True
    assert q["smoker"]["design"]["name"] == "forced_response"
    assert q["region"]["kind"] == "category" and q["region"]["options"] == ["North", "South"]
    assert q["age"]["kind"] == "number" and q["age"]["integer"] is True
    assert (q["age"]["min"], q["age"]["max"], q["age"]["required"]) == (18, 99, False)
    assert q["age"]["text"] == "How old are you?\n\nIn years"
    assert q["age"]["show_if"] == {"key": "region", "in": ["North", "South"]}
    assert q["trust"]["kind"] == "choice" and q["trust"]["ordered"] is True
    assert q["trust"]["options"] == ["Not at all", "Somewhat", "Fully"]
    # A yes/no list without a design is asked directly: a category with its labels as options.
    assert q["worked"]["kind"] == "category" and q["worked"]["options"] == ["Yes", "No"]
    es = body["translations"]["es"]["questions"]
    assert es["age"]["text"] == "¿Qué edad tiene?\n\nEn años"
    assert es["region"]["options"] == {"North": "Norte", "South": "Sur"}


def _errors(api, sheets):
    before = Survey.objects.count()
    response = upload(api, workbook(sheets))
    assert response.status_code == 400, response.json()
    assert Survey.objects.count() == before  # never a half-made survey
    return response.json()["errors"]


def test_every_problem_is_listed_by_cell_in_one_answer(api):
    form = kobo_form()
    form["survey"][1][9] = "forced_response p_truth=0.5 p_yes=0.25 p_no=0.5"  # sums over 1
    form["survey"][2][1] = ""  # no name
    form["survey"][3][8] = ". > 18"  # not a bound we read
    form["survey"][3][7] = "${nowhere} = 'x'"
    form["survey"][4][9] = "k_rr epsilon=2 colour=red"
    form["survey"][5][0] = "select_one missing_list"
    form["settings"][1][2] = "Klingon"
    errors = _errors(api, form)
    assert "survey!J2" in errors  # the design's probabilities
    assert "survey!B3" in errors
    assert "survey!I4" in errors and "survey!H4" in errors
    assert any("colour" in m for m in errors["survey!J5"])
    assert any("missing_list" in m for m in errors["survey!A6"])
    assert "settings!C2" in errors


def test_a_budget_above_the_cap_is_named_by_its_cell(api, settings):
    form = kobo_form()
    form["settings"][0].append("deniable::budget_epsilon")
    form["settings"][1].append(settings.DENIABLE_MAX_BUDGET_EPSILON * 2)
    errors = _errors(api, form)
    assert list(errors) == ["settings!E2"]


def test_missing_sheets_and_lists(api):
    assert "survey!A1" in _errors(api, {"choices": [["list_name", "name", "label"]]})
    errors = _errors(api, {"survey": kobo_form()["survey"], "settings": kobo_form()["settings"]})
    assert any("No list named" in m for m in errors["survey!A2"])


def test_wrong_types_and_unknown_columns(api):
    form = kobo_form()
    form["survey"][0].append("calculation")
    form["survey"][1].append("1 + 1")
    form["survey"][2][6] = "perhaps"  # required
    form["survey"].append(["deviceid", "device", "", "", "", "", "", "", "", ""])
    form["survey"].append(["text", "name_of_person", "Your name?", "¿Nombre?"])
    form["settings"][0].append("deniable::colour")
    form["settings"][1].append("red")
    errors = _errors(api, form)
    assert "survey!K1" in errors  # the unknown column
    assert "survey!G3" in errors
    assert any("unlinkable" in m for m in errors["survey!A7"])
    assert any("No Deniable question" in m for m in errors["survey!A8"])
    assert "settings!E2" in errors


def test_a_design_on_a_list_that_is_not_yes_no_is_refused(api):
    form = kobo_form()
    form["survey"][2][9] = "warner p=0.75"  # region: two options, not yes/no
    errors = _errors(api, form)
    assert any("warner" in m for m in errors["survey!A3"])


def test_a_crosswise_statement_and_its_translation(api):
    form = kobo_form()
    form["survey"][0] += ["deniable::innocuous::English (en)", "deniable::innocuous::Español (es)"]
    form["survey"][1][9] = "crosswise innocuous_prevalence=0.25"
    form["survey"][1] += ["My birthday is in January to March.", "Nací de enero a marzo."]
    response = upload(api, workbook(form))
    assert response.status_code == 201, response.json()
    body = response.json()
    smoker = body["questions"][0]
    assert smoker["design"]["innocuous_text"] == "My birthday is in January to March."
    es = body["translations"]["es"]["questions"]["smoker"]
    assert es["innocuous_text"] == "Nací de enero a marzo."


def test_a_missing_translation_is_named_by_its_cell(api):
    form = kobo_form()
    form["survey"][2][3] = ""  # region's Spanish label
    form["choices"][4][3] = ""  # South in Spanish
    errors = _errors(api, form)
    assert "survey!D3" in errors
    assert "choices!D5" in errors


def test_kobo_presentation_columns_in_every_language_are_not_read(api):
    """Kobo writes its presentation columns per language (``media::image::English (en)``); like
    the plain ones they are left out, not a reason to refuse the form (docs/xlsform.md)."""
    form = kobo_form()
    extra = ["media::image::English (en)", "constraint_message::Español (es)",
             "required_message::English (en)", "appearance"]  # fmt: skip
    form["survey"][0] += extra
    for row in form["survey"][1:]:
        row += ["photo.jpg", "Entre 18 y 99", "Please answer", "minimal"]
    response = upload(api, workbook(form))
    assert response.status_code == 201, response.json()
    assert len(response.json()["questions"]) == len(form["survey"]) - 1


def test_an_unknown_column_with_a_language_is_still_named(api):
    form = kobo_form()
    form["survey"][0].append("colour::English (en)")
    form["survey"][1].append("red")
    errors = _errors(api, form)
    assert any(
        "colour::English (en)" in m for m in errors[f"survey!{_letter(len(form['survey'][0]))}1"]
    )


def _letter(column: int) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(column)
