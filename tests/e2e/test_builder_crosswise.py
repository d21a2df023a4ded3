"""The builder's crosswise question in Chromium (issues 22.9 and 21.9).

Choosing Crosswise preselected a library statement (p ≈ 0.250) but filled the prevalence with
the unrelated question's 0.5, then said "0.5 makes the answers carry no information"; a stale
"Power at 500 per group: 39%" stayed beside "No preview until the design above is fixed"; the
deniability sentence was about SAME (10% → 3.6%) where DIFFERENT is the revealing answer
(10% → 25%). And a translated statement that is not the library's must be marked unverified in
the translations panel too.
"""

from __future__ import annotations

import pytest

from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from tests.e2e.test_researcher_pages import SHOTS, make_survey, researcher_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIBRARY = INNOCUOUS_STATEMENTS[0]


@pytest.mark.parametrize("width", [360, 1280])
def test_choosing_crosswise_fills_the_statements_prevalence(live_server, new_page, width):
    make_survey(respondents=0)  # the researcher
    page, problems = researcher_page(new_page, live_server, "/surveys/new/", width=width)
    page.fill("#b-title", "Receipts")
    card = page.locator("#questions > li").first
    card.locator('[data-path="text"]').fill("I have used a fake receipt.")
    preview = card.locator("[data-role=preview]")
    power = card.locator("[data-role=power]")
    power.filter(has_text="Power at").wait_for()  # the coin's preview and power first

    card.locator('[data-path="design.name"]').select_option("crosswise")
    assert card.locator('[data-path="design.innocuous_text"]').input_value() == LIBRARY["text"]
    assert float(card.locator('[data-path="design.innocuous_prevalence"]').input_value()) == (
        pytest.approx(LIBRARY["prevalence"])
    )
    # p = ¼, prior 10%: P(trait | DIFFERENT) = 0.1·¾ / (0.1·¾ + 0.9·¼) = 25% (Bayes).
    preview.filter(has_text="a DIFFERENT answer moves a 10% prior to 25.0%").wait_for()
    assert "0.5 makes the answers carry no information" not in card.inner_text()
    assert "Library statement" in card.locator("[data-role=innocuous-source]").inner_text()
    power.filter(has_text="Power at").wait_for()

    # A prevalence the model refuses: no preview, and no power line left over from before.
    card.locator('[data-path="design.innocuous_prevalence"]').fill("0.5")
    preview.filter(has_text="No preview").wait_for()
    page.wait_for_timeout(1500)  # any power answer still in flight would have landed by now
    assert power.inner_text().strip() == ""
    assert "Unverified" in card.locator("[data-role=innocuous-source]").inner_text()

    # Back to the library's value; then the Spanish statement in the translations panel.
    card.locator('[data-path="design.innocuous_prevalence"]').fill(str(LIBRARY["prevalence"]))
    page.locator("#tr-add").select_option("es")
    page.click("#tr-add-button")
    field = page.locator('[data-path="translations.es.questions.q1.innocuous_text"]')
    field.wait_for()
    check = field.locator("xpath=..").locator("[data-role=statement-check]")
    field.fill("Tengo un nombre.")  # true for everyone: SAME/DIFFERENT would be the truth
    assert "Unverified" in check.inner_text()
    page.get_by_role("button", name="Use the library's Spanish statement").click()
    assert field.input_value() == LIBRARY["texts"]["es"]
    assert check.inner_text().startswith("Library statement")
    preview.filter(has_text="a DIFFERENT answer").wait_for()  # settled again, error cleared
    assert card.locator('[data-error-for="design.innocuous_prevalence"]').is_hidden()
    page.screenshot(path=str(SHOTS / f"e2e-builder-crosswise-{width}.png"), full_page=True)
    assert all("status of 400" in m for m in problems.messages), problems.messages
