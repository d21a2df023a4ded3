"""Respondent pages in Chromium (issue 10): without JavaScript (page and thanks), branded 404,
closed and used pages under axe-core, and a used invitation refused when the page opens."""

from __future__ import annotations

from typing import Any

import pytest

from surveys.models import Survey
from surveys.services import survey_close
from tests.e2e.respondent_support import (
    MIXED,
    SIZES,
    check_axe,
    no_sideways_scroll,
    shot,
)
from testsupport.factories import invitations_create, submission_create
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _without_script(new_page: Any, width: int, height: int) -> Any:
    """A page whose script never loads: the DOM a no-JS browser gets (server-rendered, the
    physical-coin steps shown). axe-core needs JavaScript to run (its promises never settle in a
    ``java_script_enabled=False`` context, so evaluate would hang), hence this twin for axe."""
    page, _ = new_page(viewport={"width": width, "height": height})
    page.route("**/static/js/respond*.js", lambda route: route.abort())
    return page


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["phone", "desktop"])
def test_without_javascript_page_and_thanks(live_server, new_page, width, height):
    questions = [MIXED[0], MIXED[5], MIXED[6]]
    survey = make_survey(questions)
    url = f"{live_server.url}/s/{survey.slug}/"
    page, _ = new_page(java_script_enabled=False, viewport={"width": width, "height": height})
    page.goto(url)
    box = page.locator("#step-cheated .question-text").bounding_box()
    assert box is not None and box["y"] + box["height"] <= height, box
    no_sideways_scroll(page)
    shot(page, f"nojs-first-screen-{width}")
    # A refused post: the error summary at the top, linked to the fields.
    page.locator("button[type=submit]").click()
    summary = page.locator("#error-summary")
    assert summary.is_visible()
    links = summary.locator("a").all()
    assert [link.get_attribute("href") for link in links] == [
        "#id_q-cheated_0",
        "#id_q-region_0",
        "#id_q-age",
    ]
    no_sideways_scroll(page)
    shot(page, f"nojs-error-summary-{width}", full_page=True)
    page.locator("#step-cheated label", has_text="No").click()
    page.locator("#step-region label", has_text="N").first.click()
    page.locator("#step-age input").fill("30")
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    text = page.locator("main").inner_text()
    assert "sent exactly as you gave them" in text
    no_sideways_scroll(page)
    shot(page, f"thanks-nojs-{width}")

    twin = _without_script(new_page, width, height)
    twin.goto(url)
    assert twin.locator("[data-role=physical]").first.is_visible()  # really the no-JS DOM
    check_axe(twin, f"respondent page without JS, {width} px")
    twin.locator("button[type=submit]").click()
    twin.locator("#error-summary").wait_for()
    check_axe(twin, f"no-JS error summary, {width} px")
    twin.goto(f"{url}thanks/")
    check_axe(twin, f"thank-you page, {width} px")


def test_branded_404_closed_and_used_pages_pass_axe(live_server, new_page):
    page, _ = new_page(viewport={"width": 360, "height": 740})
    response = page.goto(f"{live_server.url}/s/no-such-survey/")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "We can't find that page"
    no_sideways_scroll(page)
    shot(page, "404-360")
    check_axe(page, "404 page")
    survey = make_survey(MIXED[:1])
    survey_close(survey=survey)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("h1").inner_text() == "This survey is closed"
    shot(page, "closed-360")
    check_axe(page, "closed page")


def _invite_survey() -> tuple[Survey, list[str]]:
    survey = make_survey(MIXED[:1], username="inviter")
    survey.access = Survey.Access.INVITE
    survey.save(update_fields=["access"])
    return survey, invitations_create(survey=survey, count=2)


def test_used_invitation_is_refused_when_the_page_opens(live_server, new_page):
    survey, [used, fresh] = _invite_survey()
    submission_create(
        survey=survey,
        submission_id="2b0c8f63-1e6a-4f0e-9b4c-6d2a1e3f5a7c",
        randomizer="browser",
        answers={"cheated": True},
        token=used,
    )
    page, problems = new_page(viewport={"width": 360, "height": 740})
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/#t={used}")
    refused = page.locator("#invite-refused")
    refused.wait_for()  # before anything was answered
    assert "can't be used" in refused.inner_text() and "What to do" in refused.inner_text()
    assert not page.locator("#step-cheated").is_visible()
    assert page.locator("#id_token").is_visible()
    shot(page, "invite-refused-360")
    check_axe(page, "refused invitation")
    # The token went in a POST body only, and the check did not use anything up.
    assert all(used not in r.url for r in requests)
    assert survey.invitations.filter(used=True).count() == 1
    # Correcting the code brings the questions back.
    page.locator("#id_token").fill(fresh)
    page.locator("#id_token").dispatch_event("change")
    page.locator("#step-cheated").wait_for()
    assert not refused.is_visible()
    assert survey.invitations.filter(used=True).count() == 1
    # An unknown code typed by hand is refused too.
    page.locator("#id_token").fill("no-such-code")
    page.locator("#id_token").dispatch_event("change")
    refused.wait_for()
    # The check's 200s are no console errors.
    assert problems.messages == []


def test_a_code_typed_before_the_script_runs_is_the_one_checked(live_server, new_page):
    """The code field works before the page's script has started (the server-rendered page is
    shown first; on a slow phone, or with the offline worker fetching each module on a reload,
    the script can start hundreds of milliseconds later). A code typed in that time is the
    respondent's: the script must not put the link's code back over it, and since its change
    event came before any listener, the script checks it when it starts."""
    survey, [linked, _other] = _invite_survey()
    page, problems = new_page(viewport={"width": 360, "height": 740})
    held: list[Any] = []
    page.route("**/static/js/respond.js", lambda route: held.append(route))
    page.goto(f"{live_server.url}/s/{survey.slug}/#t={linked}", wait_until="commit")
    page.locator("#id_token").wait_for()  # the server's page, its script held back
    assert page.evaluate("() => !document.querySelector('#respond-form.stepper')")
    page.locator("#id_token").fill("no-such-code")
    page.locator("#id_token").dispatch_event("change")  # heard by nobody yet
    page.wait_for_timeout(0)
    assert len(held) == 1
    held[0].continue_()
    page.locator("#invite-refused").wait_for()  # the typed code was checked, not the link's
    assert page.locator("#id_token").input_value() == "no-such-code"
    assert "#t=" not in page.url  # the link's code left the address bar all the same
    assert not page.locator("#step-cheated").is_visible()
    assert problems.messages == []
