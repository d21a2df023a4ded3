"""Number answers in headless Chromium (issue 22 item 1, DESIGN §8.4): a number out of range,
or a fraction where whole numbers are asked, is an error on the JavaScript page and on the no-JS
form — for optional questions too — and is never dropped as "left unanswered"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from surveys.models import Submission
from testsupport.factories import make_campus_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [
    {"key": "hours", "text": "Hours online for leisure?", "kind": "number", "min": 0, "max": 80,
     "required": False},
    {"key": "kids", "text": "Number of children?", "kind": "number", "min": 0, "max": 12,
     "integer": True, "required": False},
]  # fmt: skip


def _error(step: Any) -> str:
    return step.locator(".js-step-error").inner_text()


def test_js_page_refuses_out_of_range_and_fractions(live_server, new_page):
    survey = make_campus_survey(QUESTIONS)
    page, problems = new_page()
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    hours = page.locator("#step-hours")
    hours.locator("input").fill("99")
    hours.locator("[data-role=next]").click()
    assert _error(hours) == "Enter a number from 0 to 80."
    assert hours.is_visible()  # still on the question: nothing moved on, nothing dropped
    hours.locator("input").fill("12.5")
    hours.locator("[data-role=next]").click()
    kids = page.locator("#step-kids")
    kids.wait_for()
    assert kids.locator("input").get_attribute("step") == "1"
    kids.locator("input").fill("2.5")
    kids.locator("[data-role=next]").click()
    assert _error(kids) == "Enter a whole number from 0 to 12."
    kids.locator("input").fill("2")
    kids.locator("[data-role=next]").click()
    summary = page.locator("#step-summary")
    summary.wait_for()
    assert "Left unanswered" not in summary.inner_text()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    (post,) = posts
    assert json.loads(post.post_data)["answers"] == {"hours": 12.5, "kids": 2}
    assert not problems.messages, problems.messages


def test_no_js_form_refuses_out_of_range_and_fractions(live_server, new_page):
    survey = make_campus_survey(QUESTIONS)
    url = f"{live_server.url}/s/{survey.slug}/"
    page, _ = new_page(java_script_enabled=False)
    page.goto(url)
    page.locator("#step-hours input").fill("99")
    page.locator("#step-kids input").fill("2.5")
    page.locator("button[type=submit]").click()
    summary = page.locator("#error-summary")
    summary.wait_for()
    text = summary.inner_text()
    assert "Question 1: Must be between 0 and 80." in text, text
    assert "Question 2: Must be a whole number." in text, text
    assert Submission.objects.count() == 0
    page.locator("#step-hours input").fill("80")
    page.locator("#step-kids input").fill("3")
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    (row,) = Submission.objects.all()
    assert row.answers == {"hours": 80, "kids": 3}
