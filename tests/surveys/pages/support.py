"""Helpers of the server-rendered page tests (tests/surveys/pages/): a survey of every kind, an
HTML collector, the CSP check and a no-JS form post."""

from __future__ import annotations

from html.parser import HTMLParser

from surveys.models import Survey
from testsupport import factories

ALL_KINDS = [
    {"key": "cheated", "text": "Have you ever cheated on a test?", "kind": "yes_no"},
    {
        "key": "drugs",
        "text": "Have you used drugs this year?",
        "kind": "yes_no",
        "design": {"name": "warner", "p": 0.75},
    },
    {
        "key": "stolen",
        "text": "Have you stolen at work?",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.5},
    },
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["A", "B", "C", "D"],
        "design": {"name": "k_rr", "epsilon": 1.0986122886681098},  # keep = 3/6: a die works
    },
    {"key": "region", "text": "Region", "kind": "category", "options": ["North", "South"]},
    {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 99},
]


def make_survey(owner, questions=None, *, access="open", open_=True) -> Survey:
    body = {"title": "Campus life", "access": access, "questions": questions or ALL_KINDS}
    return factories.make_survey(owner, body, open_=open_)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.script_bodies: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_bodies.append(data)


def parse(html: str) -> _Collector:
    c = _Collector()
    c.feed(html)
    return c


def assert_csp_clean(html: str) -> None:
    """No inline code: every <script> has a src or is JSON data; no on* handler attributes."""
    doc = parse(html)
    for tag, attrs in doc.elements:
        if tag == "script":
            assert attrs.get("src") or attrs.get("type") == "application/json", attrs
        for name in attrs:
            assert not name.lower().startswith("on"), (tag, name)
        assert "style" not in attrs, (tag, attrs)  # style-src 'self' forbids inline styles too
        if tag == "a":
            assert not (attrs.get("href") or "").lower().startswith("javascript:")


def physical_post(survey, **overrides):
    data = {
        "q-cheated": "yes",
        "q-drugs": "no",
        "q-stolen": "no",
        "q-vote": "B",
        "q-region": "North",
        "q-age": "34",
    }
    data.update(overrides)
    return data
