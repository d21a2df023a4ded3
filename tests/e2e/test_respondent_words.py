"""The respondent's words in Chromium (issue 22 items 2, 4, 6): after a flip the result says what
stays on the device and what cannot be told; an old error never stays under a result; the
thank-you lists only what was sent and mentions an unanswered question only when there was one."""

from __future__ import annotations

import pytest

from testsupport.factories import make_campus_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {"key": "region", "text": "Where do you live?", "kind": "category", "options": ["N", "S"]},
    {"key": "hours", "text": "Hours online?", "kind": "number", "min": 0, "max": 80,
     "required": False},
]  # fmt: skip


def _flip(page, *, next_first: bool) -> None:
    step = page.locator("#step-cheated")
    if next_first:
        step.locator("[data-role=next]").click()
        assert "Flip the coins" in step.locator(".js-step-error").inner_text()
    step.locator('[data-truth="true"]').click()
    step.locator("[data-role=flip]").click()
    step.locator("[data-role=result] .reported").wait_for()
    result = step.locator("[data-role=result]").inner_text()
    assert "cannot tell whether it is your true answer or one picked by chance" in result
    assert "never sent" not in step.inner_text()
    assert step.locator(".js-step-error").count() == 0  # the old error went with the flip
    step.locator("[data-role=next]").click()
    page.locator("#step-region label", has_text="N").first.click()
    page.locator("#step-region [data-role=next]").click()


@pytest.mark.parametrize("hours", ["", "12"], ids=["left-out", "answered"])
def test_flip_words_stale_error_and_thanks(live_server, new_page, hours):
    survey = make_campus_survey(QUESTIONS)
    page, problems = new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    _flip(page, next_first=True)
    if hours:
        page.locator("#step-hours input").fill(hours)
    page.locator("#step-hours [data-role=next]").click()
    page.locator("#send-button").click()
    thanks = page.locator("#thanks")
    thanks.wait_for()
    text = thanks.inner_text()
    assert "Where do you live?" in text
    if hours:
        assert "Hours online?" in text and "unanswered" not in text
    else:
        assert "Hours online?" not in text
        assert "Nothing was sent for the question you left unanswered" in text
    assert not problems.messages, problems.messages
