"""Cheating detection (CDMsym) in real headless Chromium: answered with JavaScript (the group by
Web Crypto, then that group's spinner; the body carries {group, report}) and without it (a coin
for the group, then the group's coins; group × report radios)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from surveys.models import Submission
from tests.e2e.respondent_support import flip, memo_key
from tests.e2e.test_respondent_flow import make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS: list[dict[str, Any]] = [
    {
        "key": "cdm",
        "text": "I have taken a bribe.",
        "kind": "yes_no",
        "design": {
            "name": "cheater_detection",
            "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
        },
    },
]


def test_with_javascript_the_group_travels_with_the_report(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, problems = new_page()
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert "group 1 or group 2" in page.locator("#step-cdm").inner_text()
    flip(page, "cdm", "true", skip=True)
    result = page.locator("#step-cdm [data-role=result]").inner_text()
    assert "Group 1." in result or "Group 2." in result
    page.locator("#step-cdm [data-role=next]").click()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    body = json.loads(posts[-1].post_data)
    answer = body["answers"]["cdm"]
    assert set(answer) == {"group", "report"} and answer["group"] in (1, 2)
    assert isinstance(answer["report"], bool)
    memo = page.evaluate("k => window.localStorage.getItem(k)", memo_key(survey, "cdm"))
    assert json.loads(memo) == answer
    assert Submission.objects.get(survey=survey).answers["cdm"] == answer
    assert problems.messages == []


def test_without_javascript_a_coin_for_the_group_then_its_coins(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    text = page.locator("#step-cdm").inner_text()
    assert "Heads: you are in group 1" in text and "Group 2 only" in text
    page.locator("#step-cdm label", has_text="Group 2: NO").click()
    page.locator("button[type=submit]", has_text="Send my answers").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.answers == {"cdm": {"group": 2, "report": False}}


def test_builder_previews_epsilon_and_n_per_group(live_server, new_page):
    import re

    from django.contrib.auth import get_user_model

    from surveys.models import Survey

    get_user_model().objects.create_user("cdmbuilder", password="pw-cdm-12345")
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/new/")
    page.fill("#id_username", "cdmbuilder")
    page.fill("#id_password", "pw-cdm-12345")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/new/")
    page.fill("#b-title", "Cheating detection built in the browser")
    first = page.locator("#questions > li").first
    first.locator('[data-path="text"]').fill("I have taken a bribe.")
    first.locator('[data-path="design.name"]').select_option("cheater_detection")
    # Group 2: forced YES ⅜ (truth ⅜): ε₂ = max(ln(¾/⅜), ln(⅝/¼)) = ln 2.5 ≈ 0.916; group 1's
    # default ¼/¼ gives ln 3 ≈ 1.099, the respondent's ε.
    first.locator('[data-path="design.groups[1].p_yes"]').fill("0.375")
    preview = first.locator("[data-role=preview]")
    preview.filter(has_text="Group ε: 1.099 and 0.916").wait_for()
    assert "Local ε = 1.099" in preview.inner_text() and "per group" in preview.inner_text()
    # No one-parameter power for this design: the builder says so instead of asking the API.
    first.locator("[data-role=power]").filter(has_text="planned per group").wait_for()
    page.click("#save")
    page.wait_for_url(re.compile(r"/surveys/(?!new/)[a-z0-9]+/$"))
    q = Survey.objects.get(title="Cheating detection built in the browser").questions.get()
    assert q.design == {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.375, "p_no": 0.25}],
    }
    assert problems.messages == []
