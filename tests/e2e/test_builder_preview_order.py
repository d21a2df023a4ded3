"""Out-of-order design previews in the builder, in Chromium: the researcher changes the planned
sample size while the first preview is still on its way (a slow network, a busy server). The late
answer belongs to a state that is no longer on the page; it must not be shown, nor handed to the
power line or the design chooser, over the answer for what is now in the fields."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.test_researcher_pages import make_survey, researcher_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_late_answer_for_an_older_design_is_not_shown(live_server, new_page):
    make_survey(respondents=0)  # the researcher
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    card = page.locator("#questions > li").first
    box = card.locator("[data-role=preview]")
    box.filter(has_text="Local ε").wait_for()  # the page's own first preview has answered
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if not held:
            held.append(route)  # answered below, after the newer request
        else:
            route.continue_()

    page.route("**/api/v1/designs/preview/", hold_the_first)
    page.fill("#b-planned", "200")
    while not held:
        page.wait_for_timeout(50)
    assert json.loads(held[0].request.post_data)["planned_n"] == 200
    page.fill("#b-planned", "5000")
    box.filter(has_text="Precision at n = 5000").wait_for()  # the newer request, let through
    newer = box.inner_text()
    held[0].continue_()  # the older answer now arrives
    page.wait_for_timeout(600)  # time for it to be (wrongly) painted
    assert box.inner_text() == newer
    assert problems.messages == []
