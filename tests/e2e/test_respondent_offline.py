"""Offline answering (issue 25 item 2; DESIGN §8.6; docs/respondent-pages.md#offline), in real
Chromium at 360 px with the network switched off and on (Playwright's ``set_offline``, i.e. the
DevTools protocol's network emulation, which covers the service worker's fetches too).

The respondent opens the survey online, the network goes, they answer: the page says the answers
are saved on this device, survives a reload and a browser restart (a persistent profile) with
nothing sent, and sends them — once — when the network is back. A survey closed meanwhile says
so, and nothing is counted. What waits on the device is the request body only (reports, never a
truth), and what goes on the wire later is the request an online respondent sends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from surveys.models import Submission
from surveys.services import survey_close
from tests.e2e.respondent_support import (
    DOWN,
    KEPT,
    MIXED,
    OUTBOX,
    PHONE,
    check_axe,
    flip,
    memo_key,
    no_sideways_scroll,
    open_and_keep,
    shot,
)
from testsupport.browser import CHROMIUM_ARGS, PageProblems
from testsupport.factories import invitations_create
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [MIXED[0], MIXED[5], MIXED[6]]  # a coin (forced response), a category, a number


def _stored(survey: Any) -> int:
    return Submission.objects.filter(survey=survey).count()


def _answer(page: Any) -> None:
    flip(page, "cheated", "true", advance=True)
    page.locator("#step-region label", has_text="N").first.click()
    page.locator("#step-region [data-role=next]").click()
    page.locator("#step-age input").fill("30")
    page.locator("#step-age [data-role=next]").click()
    page.locator("#step-summary").wait_for()


def _persistent(browser: Any, profile: Path, **options: Any) -> tuple[Any, Any, PageProblems]:
    context = browser.browser_type.launch_persistent_context(
        str(profile),
        executable_path=browser_path(),
        args=CHROMIUM_ARGS,
        viewport=PHONE,
        reduced_motion="reduce",
        **options,
    )
    context.set_default_timeout(30_000)
    page = context.pages[0] if context.pages else context.new_page()
    return context, page, PageProblems(page)


def browser_path() -> str:
    from testsupport.browser import CHROMIUM

    return str(CHROMIUM)


def test_answer_offline_reload_restart_then_sent_once(live_server, browser, new_page, tmp_path):
    survey = make_survey(QUESTIONS)
    url = f"{live_server.url}/s/{survey.slug}/"
    profile = tmp_path / "profile"
    context, page, problems = _persistent(browser, profile)
    try:
        open_and_keep(page, url)
        # Installable: Chromium finds a manifest, an icon and a worker that controls the page.
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        # The worker's scope is /s/ and nothing wider; nothing of the API is kept.
        scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
        assert urlsplit(scope).path == "/s/"

        context.set_offline(True)
        assert page.evaluate(DOWN) == "down"
        # The worker's own fetches are cut too, so a reload below can only be its kept copy.
        (worker,) = context.service_workers
        assert worker.evaluate(DOWN) == "down"
        _answer(page)
        page.locator("#send-button").click()
        queued = page.locator("#queued")
        queued.wait_for()
        assert "Saved on this device" in queued.inner_text()
        assert queued.get_attribute("role") == "status"
        assert not page.locator("#respond-form").is_visible()
        assert _stored(survey) == 0
        check_axe(page, "offline: saved on this device")
        no_sideways_scroll(page)
        shot(page, "offline-queued-360")

        # What waits on the device: the request body (reports only), nothing else.
        (entry,) = page.evaluate(OUTBOX)
        assert set(entry) == {"submission_id", "scope", "url", "body"}
        body = json.loads(entry["body"])
        assert set(body) == {"submission_id", "randomizer", "answers"}
        assert body["submission_id"] == entry["submission_id"]
        reported = page.evaluate(
            "k => JSON.parse(localStorage.getItem(k))", memo_key(survey, "cheated")
        )
        assert body["answers"] == {"cheated": reported, "region": "N", "age": 30}
        assert "truth" not in entry["body"] and "coin" not in entry["body"]
        kept = page.evaluate(KEPT)
        assert not [k for k in kept if k.startswith("/api/")], kept

        # Reload with no network: the worker's copy, still waiting, still nothing sent.
        response = page.reload()
        assert response is not None and response.from_service_worker
        page.locator("#queued").wait_for()
        assert not page.locator("#respond-form").is_visible()
        assert _stored(survey) == 0
    finally:
        context.close()

    # The browser is closed and started again on the same profile, still offline.
    context, page, problems = _persistent(browser, profile, offline=True)
    try:
        wire: list[Any] = []
        # Requests that reached the server (an attempt made offline fails in the browser).
        context.on("requestfinished", lambda r: wire.append(r) if r.method == "POST" else None)
        page.goto(url)
        page.locator("#queued").wait_for()
        assert _stored(survey) == 0
        assert len(page.evaluate(OUTBOX)) == 1

        context.set_offline(False)  # back online: the page sends by itself
        thanks = page.locator("#thanks")
        thanks.wait_for()
        assert "your answers were sent" in thanks.inner_text()
        assert not page.locator("#queued").is_visible()
        assert _stored(survey) == 1
        stored = Submission.objects.get(survey=survey)
        assert str(stored.id) == entry["submission_id"]
        assert stored.answers == body["answers"]
        assert page.evaluate(OUTBOX) == []
        # On the wire: the waiting body, byte for byte (padding included), once.
        sent = [r for r in wire if "/responses/" in r.url]
        assert [r.post_data for r in sent] == [entry["body"]]
        queued_headers = set(sent[0].all_headers())

        # A network observer sees what an online respondent sends: the same URL, header names
        # and body length (the coin's report is padded; the direct answers are the same).
        online, _ = new_page(viewport=PHONE, reduced_motion="reduce")
        posts: list[Any] = []
        online.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
        online.goto(url)
        _answer(online)
        online.locator("#send-button").click()
        online.locator("#thanks").wait_for()
        (post,) = [r for r in posts if "/responses/" in r.url]
        assert post.url == sent[0].url
        assert set(post.all_headers()) == queued_headers
        assert len(post.post_data) == len(entry["body"])
        assert _stored(survey) == 2

        # Opened again online: already answered; nothing waits.
        page.reload()
        page.locator("#already").wait_for()
        assert _stored(survey) == 2
        assert [m for m in problems.messages if "net::ERR_INTERNET_DISCONNECTED" not in m] == []
    finally:
        context.close()


def test_survey_closed_while_the_answer_waited(live_server, new_page):
    survey = make_survey(QUESTIONS)
    url = f"{live_server.url}/s/{survey.slug}/"
    page, _ = new_page(viewport=PHONE, reduced_motion="reduce")
    open_and_keep(page, url)
    page.context.set_offline(True)
    _answer(page)
    page.locator("#send-button").click()
    page.locator("#queued").wait_for()
    survey_close(survey=survey)

    page.context.set_offline(False)
    refused = page.locator("#queued-refused")
    refused.wait_for()
    text = refused.inner_text()
    assert "not counted" in text and "closed before your answers could be sent" in text
    assert refused.get_attribute("role") == "alert"
    check_axe(page, "offline: not counted")
    shot(page, "offline-refused-360")
    assert not page.locator("#queued").is_visible()
    assert not page.locator("#thanks").is_visible()
    assert _stored(survey) == 0
    assert page.evaluate(OUTBOX) == []  # the entry is cleared
    assert page.evaluate("k => localStorage.getItem(k)", memo_key(survey, "~queued")) is None


def test_a_busy_server_503_keeps_the_answer_and_it_is_sent_after_retry_after(live_server, new_page):
    """Online, but the server answers 503 with Retry-After (a database outage,
    deniable/middleware.py): the answer waits on the device and is sent again, once, by itself.
    The worker is blocked here so that the test's route sees the page's requests."""
    survey = make_survey(QUESTIONS)
    page, problems = new_page(viewport=PHONE, reduced_motion="reduce", service_workers="block")
    answers: list[int] = []

    def busy_once(route: Any) -> None:
        if not answers:
            answers.append(503)
            route.fulfill(
                status=503,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body='{"error": "unavailable", "detail": "Try again shortly."}',
            )
        else:
            answers.append(0)
            route.continue_()

    page.route(f"**/api/v1/surveys/{survey.slug}/responses/**", busy_once)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    _answer(page)
    page.locator("#send-button").click()
    page.locator("#queued").wait_for()
    assert _stored(survey) == 0
    # The back-off's first wait (5 s; Retry-After asked for less) and the second attempt.
    page.locator("#thanks").wait_for(timeout=20_000)
    assert answers == [503, 0]
    assert _stored(survey) == 1
    assert page.evaluate(OUTBOX) == []
    blocked = "Service Worker registration blocked by Playwright"  # service_workers="block"
    assert [m for m in problems.messages if "503" not in m and blocked not in m] == []


def test_invite_only_answer_waits_and_is_sent_without_asking_for_the_code_again(
    live_server, new_page
):
    """The invitation code leaves the address bar when the page opens, so a reload asks for it
    again; an answer that waits on the device carries its code in its body and is shown and sent
    all the same."""
    survey = make_survey(QUESTIONS, username="inviter")
    survey.access = "invite"
    survey.save(update_fields=["access"])
    (token,) = invitations_create(survey=survey, count=1)
    url = f"{live_server.url}/s/{survey.slug}/"
    page, problems = new_page(viewport=PHONE, reduced_motion="reduce")
    page.goto(f"{url}#t={token}")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    open_and_keep(page, url + f"#t={token}")
    page.context.set_offline(True)
    _answer(page)
    page.locator("#send-button").click()
    page.locator("#queued").wait_for()
    (entry,) = page.evaluate(OUTBOX)
    assert json.loads(entry["body"])["token"] == token  # as online: the body carries the code
    # The kept copies hold no code: the page was kept by its address without the fragment.
    assert not [k for k in page.evaluate(KEPT) if token in k]

    # Opened again offline (a new visit: the browser refills no field), without the code.
    page.goto(url)
    page.locator("#queued").wait_for()
    assert page.locator("#id_token").input_value() == ""
    assert not page.locator("#code-first").is_visible()
    assert _stored(survey) == 0

    page.context.set_offline(False)
    page.locator("#thanks").wait_for()
    assert _stored(survey) == 1
    assert page.evaluate(OUTBOX) == []
    # The same code again on this device: already answered, nothing drawn or sent.
    page.goto(url)  # a new visit without the code: the page asks for it again
    page.locator("#code-first").wait_for()
    page.goto(f"{url}#t={token}")  # the link again
    page.locator("#already").wait_for()
    assert _stored(survey) == 1
    assert [m for m in problems.messages if "ERR_INTERNET_DISCONNECTED" not in m] == []
