"""Randomized multi-select in real headless Chromium (issue 16): with JavaScript the respondent
ticks their true options in unnamed boxes, one press randomizes each option separately (Web
Crypto), the body carries {option: reported bool} and the report is counted; without JavaScript
a coin per option and a YES/NO radio pair per option."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from surveys.api.estimates import estimates_body
from surveys.models import Submission
from tests.e2e.respondent_support import check_axe, memo_key
from tests.e2e.test_respondent_flow import make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OPTIONS = ["cannabis", "cocaine", "ecstasy"]
QUESTIONS: list[dict[str, Any]] = [
    {"key": "drugs", "text": "Which have you used?", "kind": "multi", "options": OPTIONS},
]


def test_with_javascript_each_box_is_randomized_and_counted(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, problems = new_page()
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    step = page.locator("#step-drugs")
    assert "tick every option that is true for you" in step.inner_text()
    check_axe(page, "multi question, before the flip")
    step.locator('[data-truth-option="cannabis"]').check()
    step.locator('[data-truth-option="ecstasy"]').check()
    step.locator("[data-role=flip]").click()
    result = step.locator("[data-role=result]")
    result.locator(".multi-results li").nth(2).wait_for()
    text = result.inner_text()
    assert "Each option was decided separately" in text
    for option in OPTIONS:
        assert f"“{option}”: we will record" in text
    assert "nobody can tell whether a ticked box is your true answer" in text
    check_axe(page, "multi question, results")
    # The truths are gone from the page once drawn (the boxes are hidden and cleared).
    assert page.evaluate(
        "[...document.querySelectorAll('[data-truth-option]')].every((b) => !b.checked)"
    )
    step.locator("[data-role=next]").click()
    summary = page.locator("#summary-list").inner_text()
    assert "each box randomized separately" in summary and "3 options × ε = 1.10" in summary
    assert f"ε = {3 * math.log(3):.2f}" in page.locator("#summary-total").inner_text()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    body = json.loads(posts[-1].post_data)
    answer = body["answers"]["drugs"]
    assert list(answer) == OPTIONS and all(isinstance(v, bool) for v in answer.values())
    assert body["randomizer"] == "browser"
    memo = page.evaluate("k => window.localStorage.getItem(k)", memo_key(survey, "drugs"))
    assert json.loads(memo) == answer
    assert Submission.objects.get(survey=survey).answers["drugs"] == answer
    # Counted: the estimates see one answer and each option's reported YES.
    entry = next(q for q in estimates_body(survey=survey)["questions"] if q["key"] == "drugs")
    assert entry["n"] == 1
    assert [o["reported"] for o in entry["options"]] == [int(answer[o]) for o in OPTIONS]
    # A reload shows the memoized report and never draws again.
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#already").wait_for()
    assert problems.messages == []


def test_reload_before_sending_keeps_the_drawn_report(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, problems = new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#step-drugs [data-role=flip]").click()  # nothing ticked: a valid truth
    page.locator("#step-drugs .multi-results li").nth(2).wait_for()
    first = page.evaluate("k => window.localStorage.getItem(k)", memo_key(survey, "drugs"))
    page.reload()
    result = page.locator("#step-drugs [data-role=result]")
    result.filter(has_text="already randomized on this device").wait_for()
    assert page.evaluate("k => window.localStorage.getItem(k)", memo_key(survey, "drugs")) == first
    assert page.locator("#step-drugs [data-role=pick]").is_hidden()
    assert problems.messages == []


def test_without_javascript_a_coin_per_option(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    text = page.locator("#step-drugs").inner_text()
    assert "Do this for each of the 3 options in turn" in text
    for i, value in enumerate(["Yes", "No", "No"]):
        page.locator(
            f"#step-drugs .multi-option:nth-of-type({i + 1}) label", has_text=value
        ).click()
    page.locator("button[type=submit]", has_text="Send my answers").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.answers == {"drugs": {"cannabis": True, "cocaine": False, "ecstasy": False}}


def test_no_javascript_form_passes_axe(live_server, new_page):
    """axe cannot run in a context without JavaScript (tests/e2e/axe.py): keep it on and refuse
    the page's own scripts, so the page is what a browser without JavaScript shows."""
    survey = make_survey(QUESTIONS)
    page, _ = new_page()
    page.route("**/static/js/**", lambda route: route.abort())
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#step-drugs .multi-option").nth(2).wait_for()
    check_axe(page, "multi question without JavaScript")


def test_builder_makes_a_multi_question_with_a_live_epsilon_sum(live_server, new_page):
    import re

    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from surveys.models import Survey

    get_user_model().objects.create_user("multibuilder", password="pw-multi-12345")
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status >= 400 else None)
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/new/")
    page.fill("#id_username", "multibuilder")
    page.fill("#id_password", "pw-multi-12345")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/new/")
    page.fill("#b-title", "Multi-select built in the browser")
    first = page.locator("#questions > li").first
    first.locator('[data-path="text"]').fill("Which have you used?")
    first.locator('[data-path="kind"]').select_option("multi")
    first.locator('[data-path="options"]').fill("cannabis\ncocaine")
    preview = first.locator("[data-role=preview]")
    # Two options × ln 3 (the coin design) = 2.197.
    preview.filter(has_text="Local ε = 2.197 (2 options × 1.099, added up").wait_for()
    page.locator("#total-epsilon").filter(has_text="2.197").wait_for()
    first.locator('[data-path="options"]').fill("cannabis\ncocaine\necstasy")
    preview.filter(has_text="Local ε = 3.296 (3 options × 1.099").wait_for()
    page.locator("#total-epsilon").filter(has_text="3.296").wait_for()
    # Crosswise and the two-group designs (cheating detection, the unknown-prevalence unrelated
    # question) are not offered for multi: each option's report is one yes/no.
    disabled = first.locator('[data-path="design.name"] option:disabled')
    assert sorted(disabled.evaluate_all("(os) => os.map((o) => o.value)")) == [
        "cheater_detection",
        "crosswise",
        "unrelated_question_unknown",
    ]
    first.locator('[data-path="design.name"]').select_option("warner")
    preview.filter(has_text="Local ε = 3.296").wait_for()  # Warner p = ¾: ln 3 per option
    page.click("#save")
    page.wait_for_url(re.compile(r"/surveys/(?!new/)[a-z0-9]+/$"))
    q = Survey.objects.get(title="Multi-select built in the browser").questions.get()
    assert (q.kind, q.options) == ("multi", ["cannabis", "cocaine", "ecstasy"])
    assert q.design == {"name": "warner", "p": 0.75}
    # A draft the preview refuses is a 400 the browser logs (a loaded machine can fire the
    # debounced preview between choosing "multi" and typing its options: a multi question with
    # no options). Only the preview may have been refused, and only with a 400.
    preview_url = f"{live_server.url}{reverse('api-design-preview')}"
    assert all(url == preview_url for url in refused), refused
    assert all("status of 400" in m for m in problems.messages), problems.messages
