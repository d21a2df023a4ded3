"""Issue 25's "done when", as one walk in Chromium: a survey written in Excel the way Kobo users
write one is imported through the builder, answered offline on a phone-sized screen, synced,
analysed, exported to Stata and SPSS, and announced by a signed webhook (docs/xlsform.md,
docs/respondent-pages.md#offline, docs/exports.md, docs/api.md#webhooks).

Every step checks the outcome a field team relies on: the survey the form describes, the answer
kept on the device and sent once, the estimates of the published batch, the labels in the .dta and
.sav files, and the one signed POST for the batch (never one per answer).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import math
import re
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook

from surveys.models import Submission, Survey
from surveys.webhooks.models import WebhookDelivery
from tests.e2e.respondent_support import (
    DOWN,
    OUTBOX,
    PHONE,
    flip,
    memo_key,
    no_sideways_scroll,
    open_and_keep,
)
from tests.surveys.webhooks.receiver import receiver
from testsupport.factories import ensure_user

pyreadstat = pytest.importorskip("pyreadstat")
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-field-walk-123"
SLUG = "field-walk"
K = 3  # the batch: the offline respondent and two more publish it
TEXTS = {
    "region": "Where do you live?",
    "cheated": "Have you ever cheated on an exam?",
    "drugs": "I used an illegal drug this year.",
    "licence": "Do you hold a driving licence?",
    "age": "How old are you?",
}


def _kobo_form() -> bytes:
    """The form as Kobo's docs write one in Excel: a ``yes_no`` list, ``label::English (en)``,
    ``${var}`` in ``relevant``, Kobo's ``$kuid`` and ``appearance`` columns (not read), the
    design in ``deniable::design``, and a settings sheet with a ``version`` (not read)."""
    header = ["type", "name", "label::English (en)", "required", "relevant", "constraint"]
    header += ["appearance", "deniable::design", "$kuid"]
    rows: list[dict[str, str]] = [
        {"type": "select_one region", "name": "region", "appearance": "minimal"},
        {
            "type": "select_one yes_no",
            "name": "cheated",
            "deniable::design": "forced_response p_truth=0.5 p_yes=0.25 p_no=0.25",
        },
        {"type": "select_one yes_no", "name": "drugs", "deniable::design": "warner p=0.75"},
        {"type": "select_one yes_no", "name": "licence", "relevant": "${region} = 'north'"},
        {"type": "integer", "name": "age", "constraint": ". >= 18 and . <= 99"},
    ]
    every = {"required": "yes"}
    survey = [header] + [
        [
            {**every, "label::English (en)": TEXTS[row["name"]], "$kuid": f"k{i}", **row}.get(c, "")
            for c in header
        ]
        for i, row in enumerate(rows)
    ]
    choices = [
        ["list_name", "name", "label::English (en)"],
        ["yes_no", "yes", "Yes"],
        ["yes_no", "no", "No"],
        ["region", "north", "North"],
        ["region", "south", "South"],
    ]
    settings = [
        ["form_title", "form_id", "version", "default_language"],
        ["Field habits", SLUG, "2026112701", "English (en)"],
    ]
    book = Workbook()
    assert book.active is not None
    book.remove(book.active)
    for name, rows in {"survey": survey, "choices": choices, "settings": settings}.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _sign_in(page: Any, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{next_path}")


def _csrf(page: Any) -> str:
    """The page's CSRF token: the researcher's session calls the API as the page would."""
    return str(page.locator("input[name=csrfmiddlewaretoken]").first.input_value())


def _answer_offline(page: Any) -> None:
    """North, so the skip logic asks about the licence; the two sensitive questions are
    randomized on the device."""
    page.locator("#step-region label", has_text="North").first.click()
    page.locator("#step-region [data-role=next]").click()
    flip(page, "cheated", "true", advance=True)
    flip(page, "drugs", "false", advance=True)
    page.locator("#step-licence label", has_text="Yes").first.click()
    page.locator("#step-licence [data-role=next]").click()
    page.locator("#step-age input").fill("30")
    page.locator("#step-age [data-role=next]").click()
    page.locator("#step-summary").wait_for()


def _deliveries_settled(survey: Survey, n: int, timeout: float = 30.0) -> list[WebhookDelivery]:
    """The survey's deliveries once ``n`` exist and none is pending (sent in a thread)."""
    deadline = time.monotonic() + timeout
    rows: list[WebhookDelivery] = []
    while time.monotonic() < deadline:
        rows = list(WebhookDelivery.objects.filter(webhook__survey=survey).order_by("id"))
        if len(rows) >= n and all(r.status != "pending" for r in rows):
            return rows
        time.sleep(0.05)
    raise AssertionError(f"deliveries did not settle: {rows}")


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return [
        tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)
        for row in frame.itertuples(index=False)
    ]


def test_kobo_form_offline_phone_estimates_stata_spss_and_webhook(
    live_server, new_page, settings, tmp_path
):
    settings.DENIABLE_ESTIMATE_BATCH = K
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True
    base = live_server.url
    ensure_user("fieldlead", PASSWORD)

    # 1. The researcher imports the Excel form through the builder, saves it and opens it.
    researcher, problems = new_page(viewport={"width": 1280, "height": 900})
    _sign_in(researcher, base, "fieldlead", "/surveys/new/")
    form = tmp_path / "field-habits.xlsx"
    form.write_bytes(_kobo_form())
    researcher.locator("#xlsform-file").set_input_files(str(form))
    researcher.locator("#import-xlsform button[type=submit]").click()
    researcher.wait_for_url(f"**/surveys/{SLUG}/edit/")
    assert "Imported “Field habits” as a draft." in researcher.locator("main").inner_text()
    researcher.locator("#b-title").wait_for()
    assert researcher.locator("#b-title").input_value() == "Field habits"
    survey = Survey.objects.get(slug=SLUG)
    assert survey.status == "draft" and survey.owner.username == "fieldlead"
    questions = {q.key: q for q in survey.questions.all()}
    assert list(questions) == list(TEXTS)
    assert {k: q.text for k, q in questions.items()} == TEXTS
    kinds = [q.kind for q in questions.values()]
    assert kinds == ["category", "yes_no", "yes_no", "category", "number"]
    assert questions["region"].options == ["North", "South"]
    assert questions["cheated"].design["name"] == "forced_response"
    assert questions["drugs"].design == {"name": "warner", "p": 0.75}
    # A yes_no list without a design is asked directly; ${region} = 'north' is its skip logic.
    assert questions["licence"].options == ["Yes", "No"] and not questions["licence"].design
    assert questions["licence"].show_if == {"key": "region", "in": ["North"]}
    assert questions["age"].integer
    assert (questions["age"].min_value, questions["age"].max_value) == (18, 99)
    researcher.click("#save")
    researcher.wait_for_url(f"**/surveys/{SLUG}/")
    researcher.locator("button", has_text="Open for answers").click()
    researcher.locator("#respond-url").wait_for()
    survey.refresh_from_db()
    assert survey.status == "open"
    respond_url = researcher.locator("#respond-url").get_attribute("href")
    assert respond_url is not None and respond_url.endswith(f"/s/{SLUG}/")

    with receiver([200]) as hook:
        # The hook is registered through the API with the researcher's session (the survey's
        # page lists hooks; adding one is an API call, docs/api.md#webhooks).
        made = researcher.context.request.post(
            f"{base}/api/v1/surveys/{SLUG}/webhooks/",
            data={"url": hook.url},
            headers={"X-CSRFToken": _csrf(researcher), "Referer": researcher.url},
        )
        assert made.status == 201, made.text()
        secret = made.json()["secret"]
        assert made.json()["url"] == hook.url and len(secret) == 64

        # 2. A respondent on a phone opens the link once, loses the network, answers.
        phone, phone_problems = new_page(viewport=PHONE, reduced_motion="reduce")
        open_and_keep(phone, f"{base}/s/{SLUG}/")
        no_sideways_scroll(phone)
        phone.context.set_offline(True)
        assert phone.evaluate(DOWN) == "down"
        _answer_offline(phone)
        phone.locator("#send-button").click()
        queued = phone.locator("#queued")
        queued.wait_for()
        assert "Saved on this device" in queued.inner_text()
        assert Submission.objects.filter(survey=survey).count() == 0
        (entry,) = phone.evaluate(OUTBOX)
        body = json.loads(entry["body"])
        reported = {
            key: phone.evaluate("k => JSON.parse(localStorage.getItem(k))", memo_key(survey, key))
            for key in ("cheated", "drugs")
        }
        assert body["answers"] == {"region": "North", **reported, "licence": "Yes", "age": 30}
        assert "truth" not in entry["body"]

        phone.context.set_offline(False)  # back online: the page sends by itself
        thanks = phone.locator("#thanks")
        thanks.wait_for()
        assert "your answers were sent" in thanks.inner_text()
        assert phone.evaluate(OUTBOX) == []
        stored = Submission.objects.get(survey=survey)
        assert str(stored.id) == entry["submission_id"] and stored.answers == body["answers"]
        # One answer is not a batch: nothing published, nothing announced.
        assert not WebhookDelivery.objects.exists()
        assert [m for m in phone_problems.messages if "ERR_INTERNET_DISCONNECTED" not in m] == []

        # Two more respondents through the API (reported values, as a collecting script sends).
        others = [
            {"region": "South", "cheated": False, "drugs": False, "age": 40},
            {"region": "North", "cheated": True, "drugs": True, "licence": "No", "age": 50},
        ]
        api, _ = new_page()
        for i, answers in enumerate(others):
            sent = api.request.post(
                f"{base}/api/v1/surveys/{SLUG}/responses/",
                data={
                    "submission_id": str(uuid.uuid4()),
                    "randomizer": "browser",
                    "answers": answers,
                },
            )
            assert sent.status == 201, sent.text()
            published = WebhookDelivery.objects.count()
            assert published == (1 if i == len(others) - 1 else 0)

        # 4. (while the walk goes on) The receiver gets one signed POST for the batch.
        (got,) = hook.wait_for(1)
        (delivery,) = _deliveries_settled(survey, 1)
    assert delivery.status == "delivered" and delivery.response_status == 200
    assert got.path == "/hook" and got.headers["Content-Type"] == "application/json"
    mac = hmac.new(secret.encode(), got.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(got.headers["X-Deniable-Signature"], f"sha256={mac}")
    assert json.loads(got.body) == {
        "event": "batch.published",
        "survey": SLUG,
        "published": K,
        "respondents": K,
    }
    assert len(hook.received) == 1

    # 3. The researcher reads the estimates of the batch ...
    researcher.goto(f"{base}/surveys/{SLUG}/")
    assert researcher.locator("#respondent-count").inner_text() == str(K)
    researcher.goto(f"{base}/surveys/{SLUG}/results/")
    table = researcher.locator("table.estimates").first

    def cell(key: str, column: str, option: str | None = None) -> str:
        row = table.locator(f'tr[data-key="{key}"]')
        if option is not None:
            row = row.filter(has=researcher.locator(f'td[data-label="Answer"]:text-is("{option}")'))
        return str(row.first.locator(f'td[data-label="{column}"]').inner_text()).strip()

    assert cell("age", "n") == "3" and cell("age", "Estimate") == "40.00"  # direct: exact
    assert cell("region", "n", "North") == "3" and cell("region", "Estimate", "North") == "66.7%"
    assert cell("cheated", "n") == "3"
    assert re.fullmatch(r"\d+\.\d%\*?", cell("cheated", "Estimate"))  # debiased from reports
    assert cell("drugs", "n") == "3"
    assert cell("licence", "n", "Yes") == "2"  # asked only in the north
    assert cell("licence", "Estimate", "Yes") == "50.0%"

    # ... and downloads the reports as Stata and SPSS files, labelled.
    csv_link = researcher.locator("a", has_text="CSV").nth(1).get_attribute("href")
    assert csv_link is not None and csv_link.endswith("responses/export/?format=csv")
    expected = Counter(
        [
            ("North", body["answers"]["cheated"], body["answers"]["drugs"], "Yes", 30),
            ("South", False, False, None, 40),
            ("North", True, True, "No", 50),
        ]
    )
    for fmt, read in (("dta", pyreadstat.read_dta), ("sav", pyreadstat.read_sav)):
        answer = researcher.context.request.get(f"{base}{csv_link[: -len('csv')]}{fmt}")
        assert answer.status == 200, answer.text()
        disposition = answer.headers["content-disposition"]
        assert disposition == f'attachment; filename="{SLUG}-reports.{fmt}"'
        path: Path = tmp_path / f"reports.{fmt}"
        path.write_bytes(answer.body())
        frame, meta = read(str(path))
        assert list(frame.columns) == list(TEXTS)
        assert meta.column_labels == list(TEXTS.values())
        labels = meta.variable_value_labels
        assert labels["region"] == {1: "North", 2: "South"}
        assert labels["cheated"] == labels["drugs"] == {0: "No", 1: "Yes"}
        assert labels["licence"] == {1: "Yes", 2: "No"}
        assert "age" not in labels
        got_rows = Counter(
            (
                labels["region"][int(region)],
                bool(cheated),
                bool(drugs),
                None if licence is None else labels["licence"][int(licence)],
                int(age),
            )
            for region, cheated, drugs, licence, age in _rows(frame)
        )
        assert got_rows == expected, fmt

    # The survey's page shows the hook and its delivery to the owner.
    researcher.goto(f"{base}/surveys/{SLUG}/sharing/")
    card = researcher.locator("#webhooks")
    assert hook.url in card.inner_text()
    delivered = card.locator(f"#webhook-{delivery.webhook_id}-deliveries tbody tr")
    assert delivered.count() == 1
    assert delivered.locator('td[data-label="Status"]').inner_text() == "delivered"
    assert delivered.locator('td[data-label="Answer"]').inner_text() == "HTTP 200"
    assert problems.messages == []
