"""Respondent pages in Chromium (issue 10): a report's size does not give it away (issue 11
item 5): request bodies of the API and the no-JS form."""

from __future__ import annotations

import json

import pytest

from tests.e2e.respondent_support import (
    MIXED,
    memo_key,
)
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_request_body_length_does_not_depend_on_the_reports(live_server, browser):
    """Every combination of reports (2 yes/no × 3 options of different UTF-8 lengths) is sent
    from a fresh browser whose memo already holds it; all bodies have the same byte length."""
    import itertools
    import uuid

    questions = [
        MIXED[0],
        {
            "key": "pick",
            "text": "Which one?",
            "kind": "choice",
            "options": ["A", "A much longer option", "Ünïcødé"],
            "design": {"name": "k_rr", "epsilon": 1.0},
        },
    ]
    survey = make_survey(questions)
    lengths: dict[tuple[str, str], int] = {}
    for yes, option in itertools.product(["true", "false"], questions[1]["options"]):
        context = browser.new_context(reduced_motion="reduce")
        memo = {
            memo_key(survey, "cheated"): yes,
            memo_key(survey, "pick"): json.dumps(option),
            memo_key(survey, "~submission"): str(uuid.uuid4()),
        }
        context.add_init_script(
            f"for (const [k, v] of Object.entries({json.dumps(memo)})) localStorage.setItem(k, v);"
        )
        page = context.new_page()
        bodies: list[bytes] = []
        page.on(
            "request",
            lambda r, out=bodies: out.append(r.post_data_buffer) if r.method == "POST" else None,
        )
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        page.locator("#step-cheated [data-role=next]").click()
        page.locator("#step-pick [data-role=next]").click()
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.locator("#send-button").click()
        assert answer.value.status == 201
        [body] = bodies
        assert json.loads(body)["answers"] == {"cheated": yes == "true", "pick": option}
        lengths[(yes, option)] = len(body)
        context.close()
    assert len(set(lengths.values())) == 1, lengths
    print(f"request body length for every report combination: {lengths}")


def test_no_js_form_body_length_does_not_depend_on_the_reports(live_server, new_page):
    """The physical-coin form: every ticked report (yes/no × 4 options of different encoded
    lengths) posts a body of the same byte length."""
    import itertools
    import math

    options = ["A", "A much longer option", "Ünï & co", "D"]
    questions = [
        MIXED[0],
        {
            "key": "pick",
            "text": "Which one?",
            "kind": "choice",
            "options": options,
            "design": {"name": "k_rr", "epsilon": math.log(3)},  # keep ½: a coin and a die
        },
    ]
    survey = make_survey(questions)
    page, _ = new_page(java_script_enabled=False)
    lengths: dict[tuple[str, str], int] = {}
    for yes, option in itertools.product(["Yes", "No"], options):
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        page.locator("#step-cheated label", has_text=yes).click()
        page.locator(f"#id_q-pick_{options.index(option)}").check()
        with page.expect_request(lambda r: r.method == "POST") as posted:
            page.locator("button[type=submit]").click()
        page.wait_for_url(f"**/s/{survey.slug}/thanks/")
        lengths[(yes, option)] = len(posted.value.post_data_buffer)
    assert len(set(lengths.values())) == 1, lengths
    stored = sorted((s.answers["cheated"], s.answers["pick"]) for s in survey.submissions.all())
    assert stored == sorted(
        (yes == "Yes", option) for yes, option in itertools.product(["Yes", "No"], options)
    )
    print(f"no-JS body length for every report combination: {lengths}")
