"""Issue 14 in Chromium: a researcher fits a regression and reads group comparisons on the
dashboard, and sees live power in the builder — without leaving Deniable."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from surveys.services import submission_create
from tests.e2e.axe import axe_violations, format_violations
from tests.e2e.test_researcher_pages import QUESTIONS, make_survey, researcher_page
from testsupport import factories

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_regression_and_comparisons_on_the_dashboard(live_server, new_page):
    survey = make_survey(respondents=0)
    rng = np.random.default_rng(14)  # varied reports, so the fit is interior (a chart, no warning)
    for _ in range(150):
        south = bool(rng.random() < 0.5)
        trait = rng.random() < (0.5 if south else 0.2)
        coin = rng.random()
        submission_create(
            survey=survey,
            submission_id=uuid.uuid4(),
            randomizer="browser",
            answers={
                "cheated": bool(trait if coin < 0.5 else coin < 0.75),
                "vote": QUESTIONS[1]["options"][int(rng.integers(4))],
                "region": "South" if south else "North",
                "age": int(rng.integers(18, 70)),
            },
        )
    page, problems = researcher_page(
        new_page, live_server, f"/surveys/{survey.slug}/results/?group_by=region"
    )
    assert page.locator("#comparisons [data-key=cheated]").is_visible()
    assert "equal prevalence" in page.locator("#comparisons").inner_text()
    page.locator("#comparisons").screenshot(path="/tmp/shots-dashboard/e2e-comparisons-1280.png")
    comparison_violations = axe_violations(page)
    # The regression is its own section (issue 22.10), one click away.
    page.locator(".section-nav a[data-section=analysis]").click()
    page.wait_for_url(f"**/surveys/{survey.slug}/analysis/")
    form = page.locator("#regression-form")
    form.locator("select[name=outcome]").select_option("cheated")
    form.locator("input[name=predictors][value=region]").check()
    form.locator("input[name=predictors][value=age]").check()
    form.locator("button[type=submit]").click()
    page.locator("table.coefficients").wait_for()
    terms = page.locator("table.coefficients tbody th").all_inner_texts()
    assert terms == ["(Intercept)", "region=South", "age"]
    assert (
        page.locator("#regression svg.or-chart").count() == 1
        or page.locator("#regression .warning").count() > 0
    )
    assert f"/surveys/{survey.slug}/analysis/" in page.url and "outcome=cheated" in page.url
    page.locator("#regression").screenshot(path="/tmp/shots-dashboard/e2e-regression-1280.png")
    violations = [
        v
        for v in [*comparison_violations, *axe_violations(page)]
        if v["impact"] in ("serious", "critical")
    ]
    assert violations == [], format_violations(violations)
    assert problems.messages == []


def test_builder_shows_live_power(live_server, new_page):
    make_survey(respondents=0)
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    card = page.locator("#questions > li").first
    power = card.locator("[data-role=power]")
    power.filter(has_text="Power at").wait_for()
    first = power.inner_text()
    assert "per group" in first and "%" in first and "exact binomial" in first
    page.fill("#power-pi1", "0.5")  # a bigger difference: more power, fewer respondents
    page.wait_for_function(
        "(before) => { const t = document.querySelector('#questions > li [data-role=power]')"
        ".textContent; return t !== before && t.startsWith('Power at'); }",
        arg=first,
    )
    assert power.inner_text() != first
    page.select_option("#power-test", "one_sample")
    power.filter(has_text="respondents for").wait_for()
    assert problems.messages == []


def test_cheater_fit_warning_and_wald_comparison_on_the_dashboard(live_server, new_page):
    """Issue 26.5 and 26.7: a cheating-detection question whose answers lie outside the model's
    region gets the plain-language warning; by age, π and γ are compared by Wald tests."""
    from tests.e2e.test_researcher_pages import PASSWORD
    from tests.surveys.cheater.support import BODY

    survey = factories.make_campus_survey(BODY["questions"], username="rita", password=PASSWORD)
    # λ̂ = (¾, ¼) overall: this design needs λ₂ ≥ λ₁, so no (π, β, γ) fits (G² ≈ 21).
    for age, (yes1, yes2) in {"young": (8, 2), "old": (7, 3)}.items():
        for group, yes in ((1, yes1), (2, yes2)):
            for i in range(10):
                factories.submission_create(
                    survey=survey,
                    submission_id=str(uuid.uuid4()),
                    randomizer="browser",
                    answers={"cdm": {"group": group, "report": i < yes}, "age": age},
                )
    page, problems = researcher_page(
        new_page, live_server, f"/surveys/{survey.slug}/results/?group_by=age"
    )
    warning = page.locator("#fit-warnings [data-key=cdm]")
    assert "contradict this design's assumptions" in warning.inner_text()
    assert "Wald test of equality" in page.locator("#comparisons [data-key=cdm]").inner_text()
    page.locator("#comparisons").screenshot(path="/tmp/shots-dashboard/e2e-cheater-wald-1280.png")
    violations = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert violations == [], format_violations(violations)
    assert problems.messages == []
