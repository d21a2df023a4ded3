"""Respondent pages in Chromium (issue 10): memoization never fails open (issue 11 item 2):
blocked storage falls back to the physical coins."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.respondent_support import (
    MIXED,
    check_axe,
    shot,
)
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


# What a browser with site data blocked does: touching localStorage throws a SecurityError.
BLOCK_STORAGE = """Object.defineProperty(window, "localStorage", {
  configurable: true,
  get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
});"""


def test_blocked_storage_falls_back_to_the_physical_coins(live_server, new_page):
    survey = make_survey([MIXED[0], MIXED[5]])
    page, problems = new_page(viewport={"width": 360, "height": 740})
    page.context.add_init_script(BLOCK_STORAGE)
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    url = f"{live_server.url}/s/{survey.slug}/"
    # Before the fix: 12 reloads gave 12 fresh flips. Now no reload offers a flip at all.
    for _ in range(12):
        page.goto(url)
        assert page.locator("#storage-blocked").is_visible()
        assert not page.locator("#step-cheated [data-role=flip]").is_visible()
        assert not page.locator("#step-cheated [data-truth]").first.is_visible()
        assert page.locator("#step-cheated [data-role=physical] .protocol").is_visible()
    shot(page, "storage-blocked-360")
    check_axe(page, "storage-blocked notice")
    # The physical form still works: the respondent's own coin, a native post.
    page.locator("#step-cheated label", has_text="Yes").click()
    page.locator("#step-region label", has_text="S").first.click()
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    [post] = posts
    assert post.url.endswith("/thanks/")  # the form post, not the JS API call
    sub = survey.submissions.get()
    assert sub.randomizer == "physical" and sub.answers == {"cheated": True, "region": "S"}
    assert problems.messages == []


def test_blocked_storage_with_a_design_coins_cannot_do_blocks_answering(live_server, new_page):
    survey = make_survey([MIXED[4]])  # k-RR over 4 options at ε = 1.2: no exact coin/die recipe
    page, _ = new_page()
    page.context.add_init_script(BLOCK_STORAGE)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("#storage-blocked").is_visible()
    assert not page.locator("[data-role=flip]").first.is_visible()
    assert page.locator("button[type=submit]").count() == 0  # nothing can be sent
    assert "can't be randomized without JavaScript" in page.locator("#step-vote").inner_text()
