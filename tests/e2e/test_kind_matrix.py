"""The kind × surface matrix in real headless Chromium (issue 23 item 7): the survey of
tests/surveys/kinds/matrix_support.py (one question per registered kind and per yes/no design,
with its Spanish translation) on the respondent page with JavaScript, without it and in Spanish,
and on the researcher's results page after one report. The API surfaces (builder POST, exports,
release, translation API) are in tests/surveys/kinds/test_matrix_api.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation

from surveys.api.estimates import estimates_body
from surveys.models import Submission, Survey
from surveys.pages.forms import physical_protocol
from tests.e2e.respondent_support import check_axe
from tests.surveys.kinds import matrix_support as m
from testsupport.factories import ensure_user, make_survey, submit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ALL = m.matrix_questions()
PASSWORD = "pw-matrix-12345"


def _survey(username: str) -> Any:
    return make_survey(ensure_user(username, PASSWORD), m.survey_body())


def _labels(question: dict[str, Any], translate: bool) -> list[str]:
    words = m.spanish(question) if translate else None
    options = question.get("options") or []
    return [words["options"][o] if words else o for o in options]


def _assert_every_step(page: Any, *, translate: bool, survey: Any = None) -> None:
    """Each question's step shows its text and its option labels; without JavaScript (``survey``
    given) a question that coins or dice cannot randomize shows why instead of its options (the
    no-JS protocol decides, :func:`surveys.pages.forms.physical_protocol`)."""
    with translation.override("en"):  # the page's language, whatever this thread had active
        protocols = {q.key: physical_protocol(q) for q in survey.questions.all()} if survey else {}
    for _, question, _ in ALL:
        step = page.locator(f"#step-{question['key']}")
        text = step.inner_text()
        expected = m.spanish(question)["text"] if translate else question["text"]
        assert expected in text, (question["key"], text)
        protocol = protocols.get(question["key"])
        if protocol is not None and not protocol.possible:
            assert "can't be randomized without JavaScript" in text, question["key"]
            assert protocol.reason in text, question["key"]
            continue
        for label in _labels(question, translate):
            assert label in text, (question["key"], label)


def test_with_javascript_every_kind_has_its_step(live_server, new_page):
    survey = _survey("matrixjs")
    page, problems = new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator(f"#step-{ALL[0][1]['key']}").wait_for()
    _assert_every_step(page, translate=False)
    check_axe(page, "kind matrix, JS")
    assert problems.messages == []


def _fields(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """(data-path, value) of every leaf of a question's JSON, as the builder names its inputs
    (``design.p``, ``design.groups[1].p_yes``); a list of strings is one textarea, a line each."""
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in _fields(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        return [f for i, v in enumerate(value) for f in _fields(v, f"{path}[{i}]")]
    return [(path, value)]


def _build(card: Any, question: dict[str, Any]) -> None:
    """Fill one builder card from the question's JSON: the selects first (they change the card),
    then every other field by its data-path. A choice card picks its design (k-RR, OUE) in its
    own select, beside the ε they share."""
    fields = _fields(question)
    for path in ("kind", "design.name"):
        select = card.locator(f'[data-path="{path}"]')
        if path == "design.name" and not select.is_visible():
            select = card.locator('[data-path="options_design"]')  # choice: k-RR or OUE
        if path in dict(fields) and select.is_visible():
            select.select_option(dict(fields)[path])
    for path, value in fields:
        if path in ("kind", "design.name"):
            continue
        text = "\n".join(value) if isinstance(value, list) else str(value)
        card.locator(f'[data-path="{path}"]').fill(text)


def test_the_builder_creates_every_kind_as_its_example(live_server, new_page):
    ensure_user("matrixbuild", PASSWORD)
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/new/")
    page.fill("#id_username", "matrixbuild")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/new/")
    page.fill("#b-title", "Kind matrix built in the browser")
    cards = page.locator("#questions > li")
    for i, (_, question, _) in enumerate(ALL):
        if i:
            page.click("#add-question")
        _build(cards.nth(i), question)
    page.click("#save")
    page.wait_for_url(lambda url: "/new/" not in url)
    survey = Survey.objects.get(title="Kind matrix built in the browser")
    stored = {q.key: q for q in survey.questions.all()}
    assert list(stored) == [q["key"] for _, q, _ in ALL]
    for _, question, _ in ALL:
        row = stored[question["key"]]
        assert (row.kind, row.text) == (question["kind"], question["text"])
        assert row.options == question.get("options", row.options)
        assert (row.design or {}) | question.get("design", {}) == (row.design or {})
    # Only the live design preview's refusals while a card was half filled in.
    assert all("status of 400" in msg for msg in problems.messages), problems.messages


def _flip(step: Any, truth: str) -> None:
    step.locator(f'[data-truth="{truth}"]').click()
    step.locator("[data-role=flip]").click()
    skip = step.locator("[data-role=skip]")
    if skip.is_visible():  # a long animation offers to skip to the result
        skip.click()
    step.locator("[data-role=result] .reported").wait_for()


def _tick_options(step: Any) -> None:
    step.locator("[data-truth-option]").first.check()
    step.locator("[data-role=flip]").click()
    step.locator("[data-role=result] .multi-results li").first.wait_for()


def _draw_boxes(step: Any, truth: str) -> None:
    step.locator(f'[data-truth="{truth}"]').click()
    step.locator("[data-role=flip]").click()
    step.locator("[data-role=result] .multi-results li").first.wait_for()


def _answer_both(step: Any) -> None:
    step.locator('[data-innocuous="false"]').click()  # the other question first, then the truth
    _flip(step, "true")


# TODO(kinds-pages): ask the kind how a respondent answers its step once the kinds own their
# pages; until then how Chromium answers each kind's step (what the kinds' e2e tests do).
ANSWER_STEP: dict[str, Any] = {
    "yes_no": lambda step, q: _flip(step, "true"),
    "cheater_detection": lambda step, q: _flip(step, "true"),
    "unrelated_question_unknown": lambda step, q: _answer_both(step),
    "choice": lambda step, q: _flip(step, q["options"][1]),
    "category": lambda step, q: step.locator("label", has_text=q["options"][1]).click(),
    "number": lambda step, q: step.locator("input").fill(str(q["min"] + 1)),
    "multi": lambda step, q: _tick_options(step),
    "oue": lambda step, q: _draw_boxes(step, q["options"][1]),
    "crosswise": lambda step, q: step.locator("label", has_text="Different").click(),
}


def test_with_javascript_one_report_per_kind_is_sent_and_counted_once(live_server, new_page):
    survey = _survey("matrixsend")
    page, problems = new_page()
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for kind, question, _ in ALL:
        step = page.locator(f"#step-{question['key']}")
        ANSWER_STEP[kind.name](step, question)
        step.locator("[data-role=next]").click()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    sent = json.loads(posts[-1].post_data)["answers"]
    assert list(sent) == [q["key"] for _, q, _ in ALL]
    assert Submission.objects.get(survey=survey).answers == sent
    counted = {e["key"]: e["n"] for e in estimates_body(survey=survey)["questions"]}
    assert counted == {q["key"]: 1 for _, q, _ in ALL}
    assert problems.messages == []


def test_without_javascript_every_kind_has_its_step(live_server, new_page):
    survey = _survey("matrixnojs")
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    _assert_every_step(page, translate=False, survey=survey)
    # The form can be sent only when coins or dice can randomize every question.
    answerable = all(physical_protocol(q).possible for q in survey.questions.all())
    sends = page.locator("button[type=submit]", has_text="Send my answers").count()
    assert sends == (1 if answerable else 0)


def test_in_spanish_every_kind_has_its_translated_step(live_server, new_page):
    survey = _survey("matrixes")
    page, problems = new_page(locale="es-ES")
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator(f"#step-{ALL[0][1]['key']}").wait_for()
    _assert_every_step(page, translate=True)
    assert problems.messages == []


def test_the_results_page_shows_every_question_after_one_report(live_server, new_page):
    survey = _survey("matrixdash")
    submit(survey, {q["key"]: a for _, q, a in ALL})
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/{survey.slug}/results/")
    page.fill("#id_username", "matrixdash")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**/surveys/{survey.slug}/results/")
    main = page.locator("main").inner_text()
    for _, question, _ in ALL:
        assert question["text"] in main, question["key"]
    assert problems.messages == []
