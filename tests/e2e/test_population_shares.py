"""The results page's population-shares form in Chromium at phone width (360 px): enter the
shares, see the weighted estimates beside the raw ones, no sideways scroll
(docs/analysis.md#post-stratification)."""

from __future__ import annotations

import pytest

from tests.e2e.test_researcher_pages import MEASURE, SHOTS, make_survey, researcher_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_shares_form_at_360_px(live_server, new_page):
    survey = make_survey(respondents=60)
    path = f"/surveys/{survey.slug}/results/"
    page, problems = researcher_page(new_page, live_server, path, width=360)
    form = page.locator("#weighting-form")
    form.locator("select[name=poststratify]").select_option("region")
    form.locator("input[name=shares]").fill("North:0.3,South:0.7")
    form.locator("button[type=submit]", has_text="Save shares").click()
    page.wait_for_url(f"**{path}#weighting")
    summary = page.locator("#weighting-summary")
    assert "North 30.0%, South 70.0%" in summary.inner_text()
    weighted = page.locator("#weighting table.estimates")
    assert weighted.locator("tr[data-key=cheated]").count() >= 1
    assert page.locator("table.estimates").count() >= 2  # the raw table and the weighted one
    measured = page.evaluate(MEASURE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#weighting").screenshot(path=str(SHOTS / "e2e-weighting-360.png"))
    assert measured["overflow"] <= 0, measured
    assert measured["minText"] >= 11, measured
    # A bad entry comes back with its reason.
    form = page.locator("#weighting-form")
    form.locator("input[name=shares]").fill("North:0.3,South:0.6")
    form.locator("button[type=submit]", has_text="Save shares").click()
    page.wait_for_load_state("networkidle")
    assert "sum to 1" in page.locator(".notice").first.inner_text()
    assert problems.messages == [], problems.messages
