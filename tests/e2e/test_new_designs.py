"""Issue 15 in real headless Chromium: a crosswise and a two-probability question answered with
JavaScript (the crosswise radios, the two-probability spinner) and without it (the same radios;
two coin flips for ¾/¼)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

from surveys.models import Submission, Survey
from tests.e2e.respondent_support import flip, memo_key
from tests.e2e.test_respondent_flow import make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

INNOCUOUS = "My mother was born in January, February or March."
QUESTIONS: list[dict[str, Any]] = [
    {
        "key": "cross",
        "text": "I have used a fake receipt.",
        "kind": "yes_no",
        "design": {
            "name": "crosswise",
            "innocuous_prevalence": 0.25,
            "innocuous_text": INNOCUOUS,
        },
    },
    {
        "key": "kuk",
        "text": "I have cheated on an exam.",
        "kind": "yes_no",
        "design": {"name": "two_probability", "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
    },
]


def test_with_javascript_crosswise_and_two_probability(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, problems = new_page()
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    step = page.locator("#step-cross")
    text = step.inner_text()
    assert INNOCUOUS in text and "I have used a fake receipt." in text
    assert "cannot find out whether the second statement" in text
    # Next without an answer: asked for SAME or DIFFERENT.
    step.locator("[data-role=next]").click()
    assert "SAME or DIFFERENT" in step.inner_text()
    step.locator("label", has_text="Different").click()
    step.locator("[data-role=next]").click()
    flip(page, "kuk", "true", skip=True)
    page.locator("#step-kuk [data-role=next]").click()
    summary = page.locator("#step-summary").inner_text()
    assert "DIFFERENT" in summary
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    body = json.loads(posts[-1].post_data)
    assert body["answers"]["cross"] is False
    assert isinstance(body["answers"]["kuk"], bool)
    # Only the two-probability report is memoized; the crosswise answer needs no memory.
    memo = page.evaluate("k => window.localStorage.getItem(k)", memo_key(survey, "kuk"))
    assert json.loads(memo) == body["answers"]["kuk"]
    sub = Submission.objects.get(survey=survey)
    assert sub.answers["cross"] is False
    assert problems.messages == []


def test_without_javascript_the_same_radios_and_coins(live_server, new_page):
    survey = make_survey(QUESTIONS)
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert INNOCUOUS in page.locator("#step-cross").inner_text()
    kuk = page.locator("#step-kuk").inner_text()
    assert "Flip a coin twice" in kuk
    page.locator("#step-cross label", has_text="Same").click()
    page.locator("#step-kuk label", has_text="Yes").click()
    page.locator("button[type=submit]", has_text="Send my answers").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.answers == {"cross": True, "kuk": True}


def test_builder_offers_the_vetted_innocuous_statements(live_server, new_page):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("crossbuilder", password="pw-cross-123")
    page, _ = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/new/")
    page.fill("#id_username", "crossbuilder")
    page.fill("#id_password", "pw-cross-123")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/new/")
    page.fill("#b-title", "Crosswise built in the browser")
    first = page.locator("#questions > li").first
    first.locator('[data-path="text"]').fill("I have used a fake receipt.")
    first.locator('[data-path="design.name"]').select_option("crosswise")
    pick = first.locator("[data-role=innocuous-pick]")
    pick.select_option("house_number_first_digit_1")
    assert first.locator('[data-path="design.innocuous_text"]').input_value() == (
        "The first digit of my house number is 1."
    )
    assert "Diekmann" in first.locator("[data-role=innocuous-source]").inner_text()
    preview = first.locator("[data-role=preview]")
    # ε = |ln(p/(1 − p))| at p = log₁₀2 ≈ 0.30103: ln(0.69897/0.30103) ≈ 0.842.
    preview.filter(has_text="Local ε = 0.842").wait_for()
    assert "cannot find out" in preview.inner_text()
    page.click("#save")
    page.wait_for_url(re.compile(r"/surveys/(?!new/)[a-z0-9]+/$"))
    q = Survey.objects.get(title="Crosswise built in the browser").questions.get()
    assert q.design["name"] == "crosswise"
    assert q.design["innocuous_text"] == "The first digit of my house number is 1."
    assert q.design["innocuous_prevalence"] == pytest.approx(math.log10(2))
    # The dashboard's results section states the assumption.
    page.goto(page.url + "results/")
    assert "cannot learn whether the innocuous statement" in page.content()
