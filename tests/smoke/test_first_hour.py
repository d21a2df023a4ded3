"""The first hour, as the README promises it, on a fresh clone's `make run` (issue 10).

A respondent answers the demo on a phone-sized screen and submits; simulated respondents complete
the batch of k that submission joined (estimates move in whole batches); a researcher logs in,
reads the dashboard (the respondent count went up by exactly k), requests a central-DP release
through the panel and sees it done with results. Controls are found by role and accessible name
(tests/smoke/ui.py).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.smoke import ui
from tests.smoke.server import DEMO_USER, DESKTOP, PHONE, Server, screenshot

pytestmark = pytest.mark.smoke

DEMO = "demo"


def shown(q: dict[str, Any], answers: dict[str, Any]) -> bool:
    """Skip logic (docs/api.md#skip-logic): asked only after one of the listed category answers."""
    rule = q.get("show_if")
    return rule is None or answers.get(rule["key"]) in rule["in"]


def answer(page: Any, q: dict[str, Any]) -> None:
    """Answer one question the way a person would: read it, pick, flip if it is randomized."""
    region = ui.question(page, q["text"])
    expect(region).to_be_visible()
    if (q.get("design") or {}).get("name") == "crosswise":
        # No randomizer: the respondent ticks SAME or DIFFERENT (issue 15).
        ui.option_radio(region, "Same").check()
    elif q["randomized"]:
        label = "Yes" if q["kind"] == "yes_no" else q["options"][-1]
        ui.truth_button(region, label).click()
        region.get_by_role("button", name=ui.FLIP).click()
        skip = region.get_by_role("button", name=ui.SKIP_ANIMATION)
        try:  # a person may watch the coins or skip them; both must end in a result
            skip.click(timeout=1_500)
        except Exception:  # noqa: BLE001 — the animation may already be over
            pass
        expect(skip).to_be_hidden()
        expect(ui.truth_button(region, label)).to_be_hidden()  # no second flip is offered
    elif q["kind"] == "category":
        ui.option_radio(region, q["options"][0]).check()
    else:
        low, high = q["min"], q["max"]
        ui.number_box(region).fill(f"{(low + high) / 2:g}")
    region.get_by_role("button", name=ui.NEXT).click()
    expect(region).to_be_hidden()


def answer_all(page: Any, questions: list[dict[str, Any]]) -> None:
    """Every question in order; one that skip logic hides is passed over by the page."""
    given: dict[str, Any] = {}
    for q in questions:
        if not shown(q, given):
            expect(ui.question(page, q["text"])).to_be_hidden()
            continue
        answer(page, q)
        if q["kind"] == "category":
            given[q["key"]] = q["options"][0]


def respond_on_a_phone(server: Server, new_page: Any, questions: list[dict[str, Any]]) -> None:
    page, problems = new_page(**PHONE)
    page.goto(f"{server.base}/s/{DEMO}/")
    screenshot(page, "respondent-360-start")
    answer_all(page, questions)
    page.get_by_role("button", name=ui.SEND).click()
    expect(ui.thanks(page)).to_be_visible()
    screenshot(page, "respondent-360-thanks")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scroll
    assert problems.messages == []


def log_in(page: Any, base: str, next_path: str = "") -> None:
    page.goto(f"{base}/accounts/login/" + (f"?next={next_path}" if next_path else ""))
    page.get_by_label(ui.USERNAME, exact=True).fill(DEMO_USER[0])
    page.get_by_label(ui.PASSWORD, exact=True).fill(DEMO_USER[1])
    page.get_by_role("button", name=ui.LOG_IN).click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def table_rows(table: Any) -> list[dict[str, str]]:
    """A table read by its column headers: one dict per body row."""
    headers = [h.strip() for h in table.get_by_role("columnheader").all_inner_texts()]
    rows = []
    for row in table.locator("tbody").get_by_role("row").all():
        cells = [c.strip() for c in row.get_by_role("cell").all_inner_texts()]
        rows.append(dict(zip(headers, cells, strict=False)))
    return rows


def request_release(page: Any) -> Any:
    """Request a Laplace release at ε = 0.1 through the panel (confirming if it asks)."""
    panel = ui.release_panel(page)
    panel.get_by_label(ui.EPSILON).first.fill("0.1")
    ui.wait_until_settled(page)
    ui.release_button(panel).click()
    dialog = ui.confirm_dialog(page)
    try:
        dialog.wait_for(state="visible", timeout=10_000)
    except Exception:  # noqa: BLE001 — a panel without a confirmation step
        dialog = None
    if dialog is not None:
        dialog.get_by_role("button", name=ui.CONFIRM).click()
    return panel


def test_respondent_then_researcher_then_release(server: Server, new_page: Any) -> None:
    survey = server.api("GET", f"/surveys/{DEMO}/")
    before = server.api("GET", f"/surveys/{DEMO}/estimates/")
    releases_before = server.api("GET", f"/surveys/{DEMO}/releases/")

    respond_on_a_phone(server, new_page, survey["questions"])

    # Estimates move in whole batches of k submissions (DENIABLE_ESTIMATE_BATCH, 10 under
    # `make run`; SECURITY.md): one respondent alone must not show. Simulated respondents then
    # complete the batch through the API, as others answering would, and the whole batch shows.
    k = before["estimate_batch"]
    extra = complete_the_batch(server, survey["questions"], before["respondents"], k)
    grown = before["respondents"] + k
    assert extra <= k - 1, (extra, k)

    page, problems = new_page(**DESKTOP)
    log_in(page, server.base)
    page.goto(f"{server.base}/surveys/")
    ui.survey_link(page, survey["title"]).click()
    page.wait_for_url(f"**/surveys/{DEMO}/")
    expect(ui.respondents_region(page)).to_contain_text(str(grown))
    screenshot(page, "dashboard-overview-1280")
    ui.section_link(page, "Results").click()  # issue 22.10: one click to each section
    page.wait_for_url(f"**/surveys/{DEMO}/results/")
    rows = table_rows(ui.estimates_table(page))
    first = survey["questions"][0]
    [n_before] = [q["n"] for q in before["questions"] if q["key"] == first["key"]]
    row = next(r for r in rows if r.get("Question", "").startswith(first["text"]))
    assert int(row["n"]) == n_before + k, (row, n_before, k)
    after = server.api("GET", f"/surveys/{DEMO}/estimates/")
    assert after["respondents"] == grown
    screenshot(page, "dashboard-1280")

    ui.section_link(page, "Releases").click()
    page.wait_for_url(f"**/surveys/{DEMO}/releases/")
    panel = request_release(page)
    expect(ui.history_done(panel).first).to_be_visible(timeout=30_000)
    results = ui.results_table(panel)
    expect(results).to_be_visible(timeout=30_000)
    result_rows = table_rows(results)
    assert len(result_rows) >= len(survey["questions"]) - 1, result_rows
    screenshot(page, "release-panel-1280")
    releases = server.api("GET", f"/surveys/{DEMO}/releases/")
    new = [r for r in _items(releases) if r["id"] not in {x["id"] for x in _items(releases_before)}]
    assert [r["status"] for r in new] == ["done"], new
    done = server.api("GET", re.sub(r"^.*/api/v1", "", new[0]["url"]))
    assert done["status"] == "done" and done["results"]["questions"], done
    assert problems.messages == []


def simulated_answers(questions: list[dict[str, Any]]) -> dict[str, Any]:
    """A reported answer for every question (what a respondent's browser would send)."""
    answers: dict[str, Any] = {}
    for q in questions:
        if not shown(q, answers):  # skip logic hides it: its answer must be absent
            continue
        if (q.get("design") or {}).get("name") == "cheater_detection":
            answers[q["key"]] = {"group": 1, "report": True}  # the group travels with the report
        elif q["kind"] == "yes_no":
            answers[q["key"]] = True
        elif q["kind"] in ("choice", "category"):
            answers[q["key"]] = q["options"][0]
        elif q["kind"] == "number":
            answers[q["key"]] = (q["min"] + q["max"]) / 2
    return answers


def complete_the_batch(server: Server, questions: list[dict[str, Any]], start: int, k: int) -> int:
    """Submit simulated respondents until the published count moves (at most k − 1 are needed
    after the browser's one, whatever was already waiting); returns how many were sent."""
    sent = 0
    while server.api("GET", f"/surveys/{DEMO}/estimates/")["respondents"] == start:
        assert sent < k, f"{sent} submissions after the browser's and the count has not moved"
        server.api(
            "POST",
            f"/surveys/{DEMO}/responses/",
            {"submission_id": str(uuid.uuid4()), "randomizer": "browser",
             "answers": simulated_answers(questions)},
            auth=False,
        )  # fmt: skip
        sent += 1
    return sent


def _items(body: Any) -> list[dict[str, Any]]:
    return body["results"] if isinstance(body, dict) and "results" in body else body
