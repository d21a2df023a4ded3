"""The no-JS form sent twice (issue 21 item 12, issue 22 item 3; DESIGN §8.4): send, Back (the
answers still ticked), send again → one stored submission, in real Chromium with JavaScript off.
The form's one-time ``submission_id`` is the API's idempotency key."""

from __future__ import annotations

import pytest

from surveys.models import Submission
from tests.e2e.respondent_support import MIXED
from testsupport.factories import invitations_create
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _fill(page) -> None:
    page.locator("#step-cheated label", has_text="No").click()
    page.locator("#step-region label", has_text="N").first.click()
    page.locator("#step-age input").fill("30")


def _stored(survey) -> int:
    return Submission.objects.filter(survey=survey).count()


def test_send_back_send_again_stores_one_submission(live_server, new_page):
    survey = make_survey([MIXED[0], MIXED[5], MIXED[6]])
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    _fill(page)
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert _stored(survey) == 1
    page.go_back()
    page.locator("#step-age input").wait_for()
    assert page.locator("#step-age input").input_value() == "30"  # still filled in
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert _stored(survey) == 1
    # Back again, change an answer, send: still one row, and the page says so.
    page.go_back()
    page.locator("#step-age input").fill("31")
    page.locator("button[type=submit]").click()
    assert "These answers were already sent" in page.locator("h1, h2").all_inner_texts()
    assert _stored(survey) == 1


def test_two_pages_are_two_submissions(live_server, new_page):
    """Each rendering of the form is a new respondent: the id is not per browser or device."""
    survey = make_survey([MIXED[0], MIXED[5], MIXED[6]])
    for _ in range(2):
        page, _ = new_page(java_script_enabled=False)
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        _fill(page)
        page.locator("button[type=submit]").click()
        page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert _stored(survey) == 2


def test_invite_only_send_back_send_again(live_server, new_page):
    survey = make_survey([MIXED[0], MIXED[5], MIXED[6]], username="inviter")
    survey.access = "invite"
    survey.save(update_fields=["access"])
    (token,) = invitations_create(survey=survey, count=1)
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#id_token").fill(token)
    _fill(page)
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    page.go_back()
    # The code field is autocomplete="off": the browser does not refill it, the person does.
    page.locator("#id_token").fill(token)
    page.locator("button[type=submit]").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")  # the same sending: thanked, not refused
    assert _stored(survey) == 1
