"""Helpers of the respondent page tests (tests/surveys/respondent/): question sets of each
design, a survey of them, and a page's visible text and survey data."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from django.urls import reverse

from surveys.models import Survey
from testsupport import factories

COIN = {"key": "coin", "text": "Have you ever cheated on a test?", "kind": "yes_no"}
FR = {
    "key": "fr",
    "text": "Have you driven after drinking?",
    "kind": "yes_no",
    "design": {"name": "forced_response", "p_truth": 0.6, "p_yes": 0.3, "p_no": 0.1},
}
WARNER = {
    "key": "warner",
    "text": "I used a drug this year.",
    "kind": "yes_no",
    "design": {"name": "warner", "p": 0.8},
}
UQ = {
    "key": "uq",
    "text": "Have you stolen at work?",
    "kind": "yes_no",
    "design": {"name": "unrelated_question", "p": 0.6, "innocuous_prevalence": 0.3},
}
KRR = {
    "key": "vote",
    "text": "Whom did you vote for?",
    "kind": "choice",
    "options": ["Red", "Green", "Blue"],
    "design": {"name": "k_rr", "epsilon": 0.7},
}
CATEGORY = {
    "key": "region",
    "text": "Where do you live?",
    "kind": "category",
    "options": ["N", "S"],
}
NUMBER = {"key": "age", "text": "How old are you?", "kind": "number", "min": 18, "max": 99}

RANDOMIZED_ONLY = [COIN, WARNER]
DIRECT_ONLY = [CATEGORY, NUMBER]
MIXED = [COIN, FR, WARNER, UQ, KRR, CATEGORY, NUMBER]


def make(
    alice, questions: list[dict[str, Any]], *, access: str = "open", open_: bool = True
) -> Survey:
    return factories.make_survey(
        alice, {"title": "Words", "access": access, "questions": questions}, open_=open_
    )


class PageText(HTMLParser):
    """Visible text by element id (for the few ids the tests read) and every id on the page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.stack: list[str | None] = []
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if attr.get("id"):
            self.ids.add(attr["id"])
        if tag in ("input", "br", "meta", "link"):
            return
        self.stack.append(attr.get("id"))

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("input", "br", "meta", "link") and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self.stack:
            if element_id:
                self.text.setdefault(element_id, []).append(data)

    def of(self, element_id: str) -> str:
        return " ".join(" ".join(self.text.get(element_id, [])).split())


def page(client, survey: Survey) -> tuple[PageText, dict[str, Any]]:
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    doc = PageText()
    doc.feed(html)
    match = re.search(
        r'<script id="survey-data" type="application/json">(.*?)</script>', html, re.S
    )
    return doc, json.loads(match.group(1))
