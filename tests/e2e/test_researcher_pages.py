"""Researcher pages in Chromium (issue 10): the release panel, confirmations, builder errors,
phone-width layout and axe-core. Screenshots go to /tmp/shots-dashboard/ (360 and 1280 px)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from privacy.models import LedgerEntry, Release
from surveys.models import Survey
from surveys.services import survey_open
from tests.e2e.axe import axe_violations, format_violations
from testsupport import factories
from testsupport.factories import release_request

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots-dashboard")
PASSWORD = "pw-rita-123456"
QUESTIONS = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["Alpha", "Beta", "Gamma", "Delta"],
        "design": {"name": "k_rr", "epsilon": 1.2},
    },
    {
        "key": "region",
        "text": "Where do you live?",
        "kind": "category",
        "options": ["North", "South"],
    },
    {"key": "age", "text": "How old are you?", "kind": "number", "min": 18, "max": 99},
]


def make_survey(respondents: int = 60) -> Survey:
    survey = factories.make_campus_survey(
        QUESTIONS, username="rita", password=PASSWORD, budget={"epsilon": 1.0}
    )
    factories.submit_many(
        survey,
        respondents,
        lambda i: {
            "cheated": i % 4 == 0,
            "vote": QUESTIONS[1]["options"][i % 4],
            "region": "North" if i % 2 else "South",
            "age": 20 + i % 50,
        },
    )
    return survey


def login(page: Any, live_server: Any, path: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={path}")
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{path}")


def researcher_page(new_page: Any, live_server: Any, path: str, width: int = 1280, **options):
    height = 740 if width <= 400 else 900
    page, problems = new_page(viewport={"width": width, "height": height}, **options)
    login(page, live_server, path)
    return page, problems


def settled_preview(page: Any) -> Any:
    """The release panel once its preview has answered (the button's reason is not 'waiting')."""
    panel = page.locator("#releases")
    panel.locator("[data-role=preview] p").first.wait_for()
    # aria-busy="false": no preview, budget request or status poll under way (a late refresh
    # would otherwise move the button under the mouse).
    page.wait_for_function(
        "() => document.getElementById('releases').getAttribute('aria-busy') === 'false'"
        " && !/Updating|Waiting/.test(document.querySelector('[data-role=refusal]').textContent)"
    )
    return panel


def test_release_panel_guards_the_budget(live_server, new_page):
    survey = make_survey()
    page, problems = researcher_page(new_page, live_server, f"/surveys/{survey.slug}/releases/")
    panel = settled_preview(page)
    button = panel.locator("[data-role=release]")
    eps = panel.locator("input[name=epsilon]")

    # A useful default ε replaces the old fixed 0.1, and says why.
    note = panel.locator("[data-role=default-note]")
    note.filter(has_text="Proposed ε").wait_for()
    assert eps.input_value() != "0.1"
    assert float(eps.input_value()) <= 1.0

    # Group-by leaves its own question out (so the API's 400 cannot happen from the form).
    panel.locator("select[name=group_by]").select_option("region")
    region = panel.locator("input[name=questions][value=region]")
    assert not region.is_checked() and region.is_disabled()
    assert panel.locator("[data-role=group-note][data-key=region]").is_visible()
    settled_preview(page)
    assert panel.locator("[data-role=preview-error]").is_hidden()
    panel.locator("select[name=group_by]").select_option("")
    assert region.is_checked() and region.is_enabled()

    # Over budget: the button is disabled and says why.
    eps.fill("5")
    settled_preview(page)
    assert button.is_disabled()
    assert "would be refused" in panel.locator("[data-role=refusal]").inner_text()

    # A tiny ε: a warning that the release would be useless.
    eps.fill("0.01")
    settled_preview(page)
    assert "Too noisy to rely on" in panel.locator("[data-role=advice]").inner_text()
    assert button.is_enabled()

    # Spending asks first; Cancel spends nothing.
    eps.fill("0.3")
    settled_preview(page)
    button.click()
    dialog = panel.locator("dialog[data-role=confirm-dialog]")
    dialog.wait_for(state="visible")
    summary = dialog.locator("[data-role=dialog-summary]").inner_text()
    assert "This spends ε = 0.300 of the remaining 1.000" in summary
    assert "cannot be undone" in summary
    dialog.locator("[data-role=cancel]").click()
    assert dialog.is_hidden()
    assert Release.objects.count() == 0 and LedgerEntry.objects.count() == 0

    # Confirm: the release is made, charged once, and its results are shown in percent.
    button.click()
    dialog.locator("[data-role=confirm]").click()
    panel.locator("[data-role=history] .status-done").wait_for()
    assert Release.objects.count() == 1
    panel.locator("[data-role=history] button.link").first.click()
    results = panel.locator(".release-results-table")
    results.wait_for()
    assert re.search(r"\d+\.\d%", results.inner_text())

    # A 409 (someone spent the budget meanwhile) stays visible after the preview refresh.
    eps.fill("0.6")
    settled_preview(page)
    assert button.is_enabled()
    button.click()
    dialog.wait_for(state="visible")
    release_request(survey=survey, user=survey.owner, data={"mechanism": "laplace", "epsilon": 0.5})
    dialog.locator("[data-role=confirm]").click()
    error = panel.locator("[data-role=form-error]")
    error.filter(has_text="Release refused").wait_for()
    page.wait_for_timeout(2500)  # the preview refreshes (and used to clear it) within 250 ms
    settled_preview(page)
    assert error.is_visible() and "Remaining ε" in error.inner_text()
    assert button.is_disabled()  # and the refreshed preview now says it would be refused
    page.screenshot(path=str(SHOTS / "e2e-release-panel-1280.png"), full_page=True)
    # The one expected console line is the browser's note about the deliberate 409.
    assert all("409" in m for m in problems.messages), problems.messages


def test_release_panel_offers_median_quantile_and_mode(live_server, new_page):
    """Issue 30: the panel's selection mechanism keeps only the questions the statistic takes,
    previews the data-independent bound, and shows the released value and option."""
    survey = make_survey()
    page, problems = researcher_page(new_page, live_server, f"/surveys/{survey.slug}/releases/")
    panel = settled_preview(page)
    panel.locator("input[name=mechanism][value=exponential]").check()
    assert panel.locator("select[name=statistic]").is_visible()
    assert panel.locator("select[name=group_by]").is_hidden()
    age = panel.locator("input[name=questions][value=age]")
    region = panel.locator("input[name=questions][value=region]")
    assert age.is_checked() and region.is_disabled() and not region.is_checked()
    panel.locator("input[name=epsilon]").fill("0.4")
    settled_preview(page)
    assert "the value released is within" in panel.locator("[data-role=preview]").inner_text()
    panel.locator("[data-role=release]").click()
    panel.locator("dialog[data-role=confirm-dialog] [data-role=confirm]").click()
    panel.locator("[data-role=history] .status-done").wait_for()
    panel.locator("[data-role=history] button.link").first.click()
    results = panel.locator(".release-results-table")
    results.wait_for()
    assert "median" in results.inner_text()

    # The mode: category and choice questions only; q only for a quantile.
    panel.locator("select[name=statistic]").select_option("quantile")
    assert panel.locator("input[name=q]").is_visible()
    panel.locator("select[name=statistic]").select_option("mode")
    assert panel.locator("input[name=q]").is_hidden()
    assert region.is_enabled() and age.is_disabled()
    settled_preview(page)
    assert "count within" in panel.locator("[data-role=preview]").inner_text()
    assert Release.objects.get().statistic == "median"
    assert not problems.messages, problems.messages


def test_release_results_explain_negative_counts_and_clipping(live_server, new_page):
    survey = make_survey()
    with_owner = {"mechanism": "laplace", "epsilon": 0.2, "questions": ["cheated"]}
    release, _ = release_request(survey=survey, user=survey.owner, data=with_owner)
    page, problems = researcher_page(new_page, live_server, f"/surveys/{survey.slug}/releases/")
    panel = page.locator("#releases")
    panel.locator("[data-role=history] .status-done").wait_for()

    # Rewrite the stored result as seen by the page: a negative count and an estimate pinned at 0.
    def fulfil(route: Any) -> None:
        body = route.fetch().json()
        q = body["results"]["questions"][0]
        q["noisy_counts"]["yes"] = -7
        q["estimate"], q["estimate_unclipped"], q["ci_low"] = 0.0, -0.12, 0.0
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route(re.compile(rf".*/api/v1/releases/{release.pk}/$"), fulfil)
    panel.locator("[data-role=history] button.link").first.click()
    table = panel.locator(".release-results-table")
    table.wait_for()
    row = table.locator("tbody tr").first.inner_text()
    assert "-7 †" in row and "0.0% *" in row
    assert "privacy noise added to this count is larger than the count" in panel.inner_text()
    assert "Pinned at 0% or 100%" in panel.inner_text()
    assert problems.messages == []


def test_closing_a_survey_asks_first(live_server, new_page):
    survey = make_survey(respondents=3)
    page, problems = researcher_page(new_page, live_server, f"/surveys/{survey.slug}/")
    page.click("text=Close the survey")
    dialog = page.locator("#close-dialog")
    dialog.wait_for(state="visible")
    assert "cannot be undone" in dialog.inner_text()
    dialog.locator("[data-role=cancel]").click()
    survey.refresh_from_db()
    assert survey.status == "open"
    page.click("form[data-confirm] button[type=submit]")
    dialog.locator("[data-role=confirm]").click()
    page.wait_for_load_state()
    page.locator(".status-closed").first.wait_for()
    survey.refresh_from_db()
    assert survey.status == "closed"
    assert problems.messages == []


def test_builder_errors_name_the_question_once(live_server, new_page):
    make_survey(respondents=0)
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    page.fill("#b-title", "Exams")
    card = page.locator("#questions > li").first
    card.locator('[data-path="text"]').fill("Cheated on an exam")
    card.locator('[data-path="design.p_no"]').fill("0.3")  # 0.5 + 0.25 + 0.3 = 1.05
    field_error = card.locator('[data-error-for="design.p_no"]')
    field_error.filter(has_text="add up to 1").wait_for()
    assert field_error.inner_text() == (
        "The three probabilities must add up to 1 (they add up to 1.05)."
    )
    assert "design.p_no" not in card.inner_text()  # no internal path, in the preview box either
    page.click("#save")
    summary = page.locator("#builder-errors")
    summary.wait_for()
    assert (
        "Question 1 (“Cheated on an exam”): the three probabilities must add up to 1"
        in summary.inner_text()
    )
    text = page.locator("main").inner_text()
    assert "design.p_no" not in text and "questions[0]" not in text
    # Once beside the field (not twice), once in the summary.
    assert card.inner_text().count("must add up to 1") == 1
    assert summary.inner_text().count("must add up to 1") == 1
    # The summary's link takes the keyboard to the field.
    summary.locator("a").first.click()
    assert page.evaluate("document.activeElement.dataset.path") == "design.p_no"
    page.screenshot(path=str(SHOTS / "e2e-builder-errors-1280.png"), full_page=True)
    assert all("status of 400" in m for m in problems.messages), problems.messages


PAGES = {
    "list": "/surveys/",
    "overview": "/surveys/{slug}/",
    "results": "/surveys/{slug}/results/",
    "results-grouped": "/surveys/{slug}/results/?group_by=region",
    "analysis": "/surveys/{slug}/analysis/?outcome=cheated&predictors=region&predictors=age",
    "releases": "/surveys/{slug}/releases/",
    "sharing": "/surveys/{slug}/sharing/",
    "builder": "/surveys/new/",
    "builder-draft": "/surveys/{draft}/edit/",
    "delete-draft": "/surveys/{draft}/delete/",
    "invitations": "/surveys/{invite}/invitations/",
    "tokens": "/accounts/tokens/",
}

# Issue 22.10: what a phone user cannot read. Every visible text's rendered size (SVG text scaled
# by its viewBox: font-size × the CTM's scale), and every number cell of every table: on screen,
# not cut off by its scrolling box.
MEASURE = """() => {
  const out = {minText: Infinity, smallest: '', hiddenNumbers: []};
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const skip = 'script,style,title,desc,[hidden],dialog:not([open]),.visually-hidden,noscript,'
      + 'option,thead';
    if (!node.textContent.trim() || !parent || parent.closest(skip)) continue;
    const rect = parent.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) continue;
    let size = parseFloat(getComputedStyle(parent).fontSize);
    if (parent instanceof SVGElement && parent.getScreenCTM()) size *= parent.getScreenCTM().a;
    if (size < out.minText) {
      out.minText = size;
      out.smallest = node.textContent.trim().slice(0, 40);
    }
  }
  for (const td of document.querySelectorAll('table td.num, table td.cell')) {
    if (!td.textContent.trim() || td.closest('[hidden]')) continue;
    const r = td.getBoundingClientRect();
    const box = td.closest('.table-wrap')?.getBoundingClientRect() || {left: 0, right: innerWidth};
    if (r.left < Math.max(0, box.left) - 1 || r.right > Math.min(innerWidth, box.right) + 1) {
      out.hiddenNumbers.push(td.textContent.trim().slice(0, 20));
    }
  }
  out.overflow = document.documentElement.scrollWidth - innerWidth;
  return out;
}"""


@pytest.mark.parametrize("width", [360, 1280])
def test_no_sideways_scroll_and_no_serious_axe_violations(live_server, new_page, width):
    survey = make_survey()
    draft = factories.survey_create(
        owner=survey.owner,
        data={"title": "Draft with a long " + "unbrokenword" * 12, "questions": QUESTIONS},
    )
    invite = factories.survey_create(
        owner=survey.owner, data={"title": "Invited", "access": "invite", "questions": QUESTIONS}
    )
    survey_open(survey=invite)
    factories.make_invitations(invite, 3)
    release_request(
        survey=survey,
        user=survey.owner,
        data={"mechanism": "laplace", "epsilon": 0.3, "group_by": "region"},
    )
    # No bypass_csp: axe goes in over DevTools (tests/e2e/axe.py), so the site's CSP stays on and
    # any violation of it shows up in `problems`.
    page, problems = researcher_page(new_page, live_server, "/surveys/", width=width)
    found: dict[str, Any] = {}
    for name, path in PAGES.items():
        page.goto(
            live_server.url + path.format(slug=survey.slug, draft=draft.slug, invite=invite.slug)
        )
        if name == "releases":
            panel = settled_preview(page)
            panel.locator("[data-role=history] button.link").first.click()
            panel.locator(".release-results-table").wait_for()
        else:
            page.wait_for_load_state("networkidle")
        measured = page.evaluate(MEASURE)
        page.screenshot(path=str(SHOTS / f"e2e-{name}-{width}.png"), full_page=True)
        assert measured["overflow"] <= 0, (name, width, measured)
        assert measured["minText"] >= 11, (name, width, measured["minText"], measured["smallest"])
        assert measured["hiddenNumbers"] == [], (name, width, measured["hiddenNumbers"])
        found[name] = axe_violations(page)
    # Every section is one click from every other (plain links, no JavaScript needed).
    page.goto(f"{live_server.url}/surveys/{survey.slug}/")
    links = page.locator(".section-nav a").evaluate_all("(as) => as.map((a) => a.pathname)")
    assert links == [
        f"/surveys/{survey.slug}/{tail}"
        for tail in ("", "results/", "analysis/", "releases/", "sharing/")
    ]
    # The release panel with its confirmation dialog open.
    page.goto(f"{live_server.url}/surveys/{survey.slug}/releases/")
    panel = settled_preview(page)
    panel.locator("input[name=epsilon]").fill("0.1")
    settled_preview(page)
    panel.locator("[data-role=release]").click()
    panel.locator("dialog[data-role=confirm-dialog]").wait_for(state="visible")
    panel.screenshot(path=str(SHOTS / f"e2e-release-dialog-{width}.png"))
    found["release-dialog"] = axe_violations(page)
    assert not any(found.values()), "\n".join(
        format_violations(v, where=f"{name}, {width} px") for name, v in found.items() if v
    )
    assert problems.messages == []
