"""The browser memo is keyed by the survey's identity and designs and, on invite-only surveys, by
the invitation — never by the slug alone (issue 21 item 8). Each attack of the issue, in Chromium:

* a survey deleted and recreated under the same slug got the old report (drawn under another
  design) and told earlier respondents "already answered";
* on a shared device invitee B was shown, and sent, invitee A's report with B's token;
* opening B's ``#t=`` link in A's tab kept A's token.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from surveys.models import Submission, Survey
from surveys.services import invitations_create, survey_close, survey_delete
from tests.e2e.respondent_support import flip
from testsupport.factories import ensure_user, make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

COIN = {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"}
STRICT = {**COIN, "design": {"name": "forced_response", "p_truth": 0.2, "p_yes": 0.4, "p_no": 0.4}}
SLUG = "same-slug"


def _survey(questions: list[dict[str, Any]], *, access: str = "open") -> Survey:
    owner = ensure_user("alice", "pw-alice-123")
    body = {"title": "Memo", "access": access, "questions": questions}
    return make_survey(owner, body, slug=SLUG)


def _flip(page: Any) -> None:
    flip(page, "cheated", "true")


def _send(page: Any) -> None:
    page.locator("#step-cheated [data-role=next]").click()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()


def _fresh(page: Any) -> bool:
    """The question offers a first flip: no report of an earlier respondent or survey."""
    page.locator("#step-cheated [data-role=flip]").wait_for(state="attached")
    return page.locator("#step-cheated [data-role=pick]").is_visible() and not (
        page.locator("#already").is_visible()
    )


def test_a_survey_recreated_under_the_same_slug_is_a_new_memo(live_server, new_page):
    survey = _survey([COIN])
    page, problems = new_page()
    url = f"{live_server.url}/s/{SLUG}/"
    page.goto(url)
    _flip(page)
    _send(page)
    page.goto(url)
    assert page.locator("#already").is_visible()  # the same survey: answered once
    survey_close(survey=survey)
    survey_delete(survey=survey, confirm=SLUG)
    _survey([STRICT])  # same slug, another design
    page.goto(url)
    assert _fresh(page)
    page.reload()
    assert _fresh(page)  # nothing carried over from the deleted survey's draw
    _flip(page)
    _send(page)
    assert Submission.objects.filter(survey__slug=SLUG).count() == 1
    assert not problems.messages, problems.messages


def test_invitee_b_on_a_device_after_a_is_a_new_respondent(live_server, new_page):
    survey = _survey([COIN], access="invite")
    token_a, token_b = invitations_create(survey=survey, count=2)
    page, _ = new_page()
    url = f"{live_server.url}/s/{SLUG}/"
    page.goto(f"{url}#t={token_a}")
    _flip(page)
    _send(page)
    other = page.context.new_page()  # the same browser: the same site storage
    posts: list[Any] = []
    other.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    other.goto(f"{url}#t={token_b}")
    assert _fresh(other)  # not "already answered", not A's report
    _flip(other)
    _send(other)
    (sent,) = [p for p in posts if p.url.split("?")[0].endswith("/responses/")]
    assert json.loads(sent.post_data)["token"] == token_b
    assert Submission.objects.filter(survey=survey).count() == 2


def test_b_link_opened_in_a_tab_starts_afresh_with_b_token(live_server, new_page):
    survey = _survey([COIN], access="invite")
    token_a, token_b = invitations_create(survey=survey, count=2)
    page, _ = new_page()
    url = f"{live_server.url}/s/{SLUG}/"
    page.goto(f"{url}#t={token_a}")
    _flip(page)  # A drew, did not send
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{url}#t={token_b}")  # same document: only the fragment changes
    page.wait_for_function("() => document.getElementById('id_token').value !== ''")
    assert page.locator("#id_token").input_value() == token_b
    assert _fresh(page)
    _flip(page)
    _send(page)
    (sent,) = [p for p in posts if p.url.split("?")[0].endswith("/responses/")]
    assert json.loads(sent.post_data)["token"] == token_b


def test_invite_page_without_a_code_waits_for_it(live_server, new_page):
    survey = _survey([COIN], access="invite")
    (token,) = invitations_create(survey=survey, count=1)
    page, _ = new_page()
    page.goto(f"{live_server.url}/s/{SLUG}/")
    assert page.locator("#code-first").is_visible()
    assert not page.locator("#step-cheated").is_visible()
    page.locator("#id_token").fill(token)
    page.locator("#id_token").press("Tab")  # change: the page starts again under the code
    # Waited for in the new page, once its script has run (the old one never shows the stepper):
    # with the respondent pages' service worker the new page takes a little longer to arrive.
    page.wait_for_function(
        "() => document.getElementById('respond-form').classList.contains('stepper')"
    )
    assert _fresh(page) and page.locator("#id_token").input_value() == token
