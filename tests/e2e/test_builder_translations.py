"""The builder's translation panel in Chromium (docs/translations.md#builder): a language added
shows every text beside its translation field; a missing translation is named beside its field;
a complete one is saved and comes back when the draft is edited again."""

from __future__ import annotations

import pytest

from surveys.models import Survey
from tests.e2e.respondent_support import no_sideways_scroll
from tests.e2e.test_researcher_pages import make_survey, researcher_page
from testsupport.factories import survey_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_translate_a_survey_side_by_side(live_server, new_page):
    make_survey(respondents=0)  # the researcher
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    page.fill("#b-title", "Exams")
    first = page.locator("#questions > li").nth(0)
    first.locator('[data-path="text"]').fill("Have you cheated?")
    page.click("#add-question")
    second = page.locator("#questions > li").nth(1)
    second.locator('[data-path="kind"]').select_option("category")
    second.locator('[data-path="text"]').fill("Where do you live?")
    second.locator('[data-path="options"]').fill("North\nSouth")

    page.locator("#tr-add").select_option("es")
    page.click("#tr-add-button")
    panel = page.locator('.tr-panel[data-lang="es"]')
    panel.wait_for()
    # Every text respondents read, beside its field, once the panel has caught up with the edits.
    page.wait_for_function(
        "document.querySelectorAll('.tr-panel[data-lang=es] [data-path]').length === 5"
    )
    sources = panel.locator(".tr-source p").all_inner_texts()
    assert sources == ["Exams", "Have you cheated?", "Where do you live?", "North", "South"]
    fill = {
        "translations.es.title": "Exámenes",
        "translations.es.questions.q1.text": "¿Has copiado?",
        "translations.es.questions.q2.text": "¿Dónde vives?",
        "translations.es.questions.q2.options.North": "Norte",
    }
    for path, text in fill.items():
        panel.locator(f'[data-path="{path}"]').fill(text)
    page.click("#save")
    missing = panel.locator('[data-error-for="translations.es.questions.q2.options.South"]')
    missing.wait_for()
    assert "Required" in missing.inner_text()
    assert "Question 2, option in Spanish" in page.locator("#builder-errors").inner_text()
    page.screenshot(path="/tmp/shots-dashboard/e2e-builder-translations.png", full_page=True)
    panel.locator('[data-path="translations.es.questions.q2.options.South"]').fill("Sur")
    page.click("#save")
    page.wait_for_url(lambda url: "/new/" not in url)
    survey = Survey.objects.get(title="Exams")
    assert survey.languages == ["en", "es"]
    assert survey.translations["es"]["questions"]["q2"] == {
        "text": "¿Dónde vives?",
        "options": {"North": "Norte", "South": "Sur"},
    }
    assert survey.questions.get(key="q2").options == ["North", "South"]  # values unchanged

    page.goto(f"{live_server.url}/surveys/{survey.slug}/edit/")
    field = page.locator('[data-path="translations.es.questions.q1.text"]')
    field.wait_for()
    assert field.input_value() == "¿Has copiado?"
    page.set_viewport_size({"width": 360, "height": 740})
    no_sideways_scroll(page)
    assert all("status of 400" in m for m in problems.messages), problems.messages


def test_the_unknown_prevalence_design_s_statement_is_offered_for_translation(
    live_server, new_page
):
    """The server requires every language to translate the innocuous statement of an
    unknown-prevalence design (its kind's translated_design_fields), as it does a crosswise one;
    the panel used to offer only the crosswise statement, so such a survey could not be
    translated from the builder at all. There is no library check: its prevalence is unknown."""
    from surveys.kinds import kind_named

    researcher = make_survey(respondents=0).owner
    question = kind_named("unrelated_question_unknown").example_question()
    draft = survey_create(owner=researcher, data={"title": "Bribes", "questions": [question]})
    page, problems = researcher_page(new_page, live_server, f"/surveys/{draft.slug}/edit/")
    page.locator("#tr-add").select_option("es")
    page.click("#tr-add-button")
    key = question["key"]
    field = page.locator(f'[data-path="translations.es.questions.{key}.innocuous_text"]')
    field.wait_for()
    row = field.locator("xpath=..")
    assert row.locator("[data-role=statement-check]").count() == 0
    panel = page.locator('.tr-panel[data-lang="es"]')
    assert "innocuous statement" in panel.inner_text()
    assert question["design"]["innocuous_text"] in panel.locator(".tr-source p").all_inner_texts()
    panel.locator('[data-path="translations.es.title"]').fill("Sobornos")
    panel.locator(f'[data-path="translations.es.questions.{key}.text"]').fill(
        "He aceptado un soborno."
    )
    field.fill("Nací en la primera mitad del año.")
    page.click("#save")
    page.wait_for_url(lambda url: "/edit/" not in url)
    draft.refresh_from_db()
    assert draft.translations["es"]["questions"][key]["innocuous_text"] == (
        "Nací en la primera mitad del año."
    )
    assert all("status of 400" in m for m in problems.messages), problems.messages
