"""A title past its limit in the builder, in Chromium (issue 22 item 11): a pasted 600-character
title is kept whole (no maxlength cuts it), the counter says how many characters are too many, and
saving shows the server's 400 beside the title; nothing is stored."""

from __future__ import annotations

import pytest

from surveys.models import Survey
from tests.e2e.test_researcher_pages import make_survey, researcher_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [360, 1280])
def test_a_long_title_is_counted_not_cut(live_server, new_page, width):
    make_survey(respondents=0)  # the researcher
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    page.set_viewport_size({"width": width, "height": 900})
    counter = page.locator("#b-title-count")
    assert counter.inner_text() == "0 / 200 characters"
    page.fill("#b-title", "t" * 600)
    assert len(page.input_value("#b-title")) == 600  # kept whole
    assert counter.inner_text() == "600 / 200 characters: 400 too many"
    page.locator("#questions > li").nth(0).locator('[data-path="text"]').fill("Cheated?")
    before = Survey.objects.count()
    page.click("#save")
    error = page.locator('[data-error-for="title"]')
    error.wait_for()
    assert "200" in error.inner_text()
    assert Survey.objects.count() == before
    page.screenshot(path=f"/tmp/deniable-builder-title-limit-{width}.png", full_page=True)
    page.fill("#b-title", "t" * 200)
    assert counter.inner_text() == "200 / 200 characters"
    problems.messages.clear()
