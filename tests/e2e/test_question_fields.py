"""Optional questions, skip logic and ordered choice in real headless Chromium
(docs/respondent-pages.md#optional-questions, docs/respondent-pages.md#skip-logic,
docs/formulas.md#mean-score): what the respondent sees and what leaves the browser, the no-JS
path, the builder's controls and the dashboard's mean score."""

from __future__ import annotations

import json
from typing import Any

import pytest

from surveys.api.estimates import estimates_body
from surveys.models import Question, Submission, Survey
from tests.e2e.respondent_support import SHOTS, flip
from tests.e2e.test_researcher_pages import researcher_page
from testsupport import factories
from testsupport.factories import make_campus_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OPTIONAL = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {"key": "use", "text": "Have you used a banned drug?", "kind": "yes_no", "required": False},
    {
        "key": "region",
        "text": "Where do you live?",
        "kind": "category",
        "options": ["North", "South"],
        "required": False,
    },
    {"key": "hours", "text": "Hours online?", "kind": "number", "min": 0, "max": 80,
     "required": False},
]  # fmt: skip

SKIP = [
    {"key": "age", "text": "Your age group?", "kind": "category", "options": ["18-29", "30+"]},
    {
        "key": "kids",
        "text": "How many children do you have?",
        "kind": "number",
        "min": 0,
        "max": 12,
        "show_if": {"key": "age", "in": ["30+"]},
    },
    {"key": "region", "text": "Where do you live?", "kind": "category", "options": ["N", "S"]},
]


def _posted(requests: list[Any]) -> dict[str, Any]:
    (post,) = [r for r in requests if r.method == "POST"]
    return json.loads(post.post_data)


def test_optional_questions_can_be_left_unanswered(live_server, new_page):
    survey = make_campus_survey(OPTIONAL)
    page, problems = new_page()
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    flip(page, "cheated", "true", advance=True)
    use = page.locator("#step-use")
    assert "(optional)" in use.locator("legend").text_content()  # the CSS upper-cases it
    assert "You may leave this question unanswered: then nothing is sent for it." in (
        use.inner_text()
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "e2e-optional-question.png"), full_page=True)
    use.get_by_role("button", name="Leave this question unanswered").click()
    # The optional direct questions: Next without an answer moves on, no error.
    page.locator("#step-region [data-role=next]").click()
    page.locator("#step-hours [data-role=next]").click()
    summary = page.locator("#step-summary")
    summary.wait_for()
    assert summary.inner_text().count("Left unanswered: nothing is sent for this question.") == 3
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    thanks = page.locator("#thanks").inner_text()
    assert (
        "Nothing was sent for the 3 questions you left unanswered or that did not apply" in thanks
    )
    body = _posted(requests)
    assert set(body["answers"]) == {"cheated"}  # nothing at all for the three left out
    stored = Submission.objects.get(survey=survey).answers
    assert set(stored) == {"cheated"}
    assert not problems.messages, problems.messages


def test_skip_logic_shows_and_hides_live(live_server, new_page):
    survey = make_campus_survey(SKIP)
    page, problems = new_page()
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    # The no-JS words are not shown with JavaScript (the page hides the question instead).
    assert not page.locator("#show-if-kids").is_visible()
    page.locator("#step-age label", has_text="18-29").click()
    page.locator("#step-age [data-role=next]").click()
    assert page.locator("#step-region").is_visible()  # kids passed over
    assert not page.locator("#step-kids").is_visible()
    page.locator("#step-region [data-role=back]").click()
    assert page.locator("#step-age").is_visible()  # Back passes over it too
    page.locator("#step-age label", has_text="30+").click()
    page.locator("#step-age [data-role=next]").click()
    assert page.locator("#step-kids").is_visible()  # shown now
    page.locator("#step-kids [data-role=next]").click()  # required once shown
    assert "Enter a number" in page.locator("#step-kids .js-step-error").inner_text()
    page.locator("#step-kids input").fill("2")
    page.locator("#step-kids [data-role=next]").click()
    page.locator("#step-region label", has_text="S").click()
    page.locator("#step-region [data-role=next]").click()
    assert "How many children do you have?" in page.locator("#step-summary").inner_text()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    assert _posted(requests)["answers"] == {"age": "30+", "kids": 2, "region": "S"}
    assert not problems.messages, problems.messages


def test_skip_logic_without_javascript_says_which_answer_and_ignores_a_hidden_one(
    live_server, new_page
):
    survey = make_campus_survey(SKIP)
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    note = page.locator("#show-if-kids")
    assert note.inner_text() == (
        "Answer only if you answered “30+” to “Your age group?”; otherwise leave it unanswered."
    )
    page.locator("#step-age label", has_text="18-29").click()
    page.locator("#step-kids input").fill("3")  # answered although hidden: ignored
    page.locator("#step-region label", has_text="N").click()
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert Submission.objects.get(survey=survey).answers == {"age": "18-29", "region": "N"}


def test_builder_sets_required_skip_logic_and_ordered(live_server, new_page):
    factories.make_campus_survey(SKIP, username="rita", password="pw-rita-123456")
    page, problems = researcher_page(new_page, live_server, "/surveys/new/")
    page.fill("#b-title", "Logic")
    cards = page.locator("#questions > li")
    first = cards.nth(0)
    first.locator('[data-path="key"]').fill("age")
    first.locator('[data-path="kind"]').select_option("category")
    first.locator('[data-path="text"]').fill("Your age group?")
    first.locator('[data-path="options"]').fill("18-29\n30+")
    page.click("#add-question")
    second = cards.nth(1)
    second.locator('[data-path="key"]').fill("kids")
    second.locator('[data-path="kind"]').select_option("number")
    second.locator('[data-path="text"]').fill("How many children?")
    second.locator('[data-path="min"]').fill("0")
    second.locator('[data-path="max"]').fill("12")
    second.locator('[data-path="required"]').uncheck()
    second.locator('[data-path="show_if.key"]').select_option("age")
    second.get_by_label("30+").check()
    page.click("#add-question")
    third = cards.nth(2)
    third.locator('[data-path="key"]').fill("mood")
    third.locator('[data-path="kind"]').select_option("choice")
    third.locator('[data-path="text"]').fill("How often?")
    third.locator('[data-path="options"]').fill("never\nsometimes\noften")
    third.locator('[data-path="ordered"]').check()
    second.screenshot(path=str(SHOTS / "e2e-builder-skip-logic.png"))
    # A randomized question offers no skip logic at all.
    assert not third.locator("[data-role=show-if]").is_visible()
    page.click("#save")
    page.wait_for_url(lambda url: "/new/" not in url)
    survey = Survey.objects.get(title="Logic")
    qs = {q.key: q for q in Question.objects.filter(survey=survey)}
    assert qs["kids"].show_if == {"key": "age", "in": ["30+"]} and qs["kids"].required is False
    assert qs["mood"].ordered is True and qs["age"].required is True
    # Reopened, the builder shows the same choices.
    page.goto(f"{live_server.url}/surveys/{survey.slug}/edit/")
    kids = page.locator("#questions > li").nth(1)
    assert kids.locator('[data-path="show_if.key"]').input_value() == "age"
    assert kids.get_by_label("30+").is_checked() and not kids.get_by_label("18-29").is_checked()
    assert not kids.locator('[data-path="required"]').is_checked()
    assert page.locator("#questions > li").nth(2).locator('[data-path="ordered"]').is_checked()
    # Only the live design preview's refusals while a card was half filled in.
    assert all("status of 400" in m for m in problems.messages), problems.messages


def test_dashboard_shows_the_mean_score_of_an_ordered_question(live_server, new_page):
    questions = [
        {
            "key": "mood",
            "text": "How often overwhelmed?",
            "kind": "choice",
            "options": ["never", "sometimes", "often"],
            "design": {"name": "k_rr", "epsilon": 2.0},
            "ordered": True,
        }
    ]
    survey = factories.make_campus_survey(questions, username="rita", password="pw-rita-123456")
    factories.submit_many(survey, 40, lambda i: {"mood": ["never", "sometimes", "often"][i % 3]})
    score = next(q for q in estimates_body(survey=survey)["questions"] if q["key"] == "mood")[
        "mean_score"
    ]
    page, problems = researcher_page(new_page, live_server, f"/surveys/{survey.slug}/results/")
    row = page.locator('tr[data-key="mood"][data-option="mean score (1–3)"]')
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "mean score (1–3)" and cells[2] == "40"
    assert cells[4] == f"{score['estimate']:.2f}"
    assert cells[6] == f"{score['ci_low']:.2f}–{score['ci_high']:.2f}"
    assert not problems.messages, problems.messages
