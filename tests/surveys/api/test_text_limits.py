"""Text longer than a field's limit is a 400 naming the field and the limit, never truncated
(DESIGN §8.4; issue 22 item 11: a 600-character title was cut to ~200 without a word — the
builder's maxlength cut a pasted title; the builder now counts instead, and the server says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from surveys.definitions.specs import MAX_OPTION_LENGTH, TITLE_MAX
from surveys.definitions.translations import TEXT_MAX
from surveys.models import Survey
from tests.surveys.api.support import API

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


def _body(**overrides):
    body = {
        "title": "Limits",
        "description": "About",
        "questions": [
            {"key": "q", "text": "Q?", "kind": "yes_no"},
            {"key": "c", "text": "C", "kind": "category", "options": ["a", "b"]},
        ],
    }
    body.update(overrides)
    return body


def _question(**fields):
    return [{"key": "q", "text": "Q?", "kind": "yes_no", **fields}]


CASES = [
    ("title", _body(title="t" * (TITLE_MAX * 3)), TITLE_MAX),
    ("description", _body(description="d" * (TEXT_MAX + 1)), TEXT_MAX),
    ("questions[0].text", _body(questions=_question(text="x" * (TEXT_MAX + 1))), TEXT_MAX),
    (
        "questions[0].options[0]",
        _body(
            questions=[{"key": "c", "text": "C", "kind": "category", "options": ["o" * 201, "b"]}]
        ),
        MAX_OPTION_LENGTH,
    ),
    (
        "translations.es.title",
        _body(
            languages=["en", "es"],
            translations={
                "es": {
                    "title": "t" * (TITLE_MAX + 1),
                    "description": "Sobre",
                    "questions": {
                        "q": {"text": "¿Q?"},
                        "c": {"text": "C", "options": {"a": "a", "b": "b"}},
                    },
                }
            },
        ),
        TITLE_MAX,
    ),
]


@pytest.mark.parametrize(("field", "body", "limit"), CASES, ids=[c[0] for c in CASES])
def test_over_the_limit_is_a_400_naming_the_field_and_the_limit(api, field, body, limit):
    before = Survey.objects.count()
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400, r.content[:300]
    errors = r.json()["errors"]
    assert field in errors, errors
    assert any(re.search(rf"\b{limit}\b", message) for message in errors[field]), errors[field]
    assert Survey.objects.count() == before  # nothing stored, nothing cut


def test_at_the_limit_the_text_is_kept_whole(api):
    title = "é" * TITLE_MAX
    r = api.post(f"{API}/surveys/", _body(title=title, description="d" * TEXT_MAX), format="json")
    assert r.status_code == 201, r.content[:300]
    survey = Survey.objects.get(slug=r.json()["slug"])
    assert survey.title == title and len(survey.description) == TEXT_MAX


def test_an_edit_over_the_limit_is_a_400_too(api):
    slug = api.post(f"{API}/surveys/", _body(), format="json").json()["slug"]
    r = api.patch(f"{API}/surveys/{slug}/", {"title": "t" * 600}, format="json")
    assert r.status_code == 400 and "title" in r.json()["errors"]
    assert Survey.objects.get(slug=slug).title == "Limits"


def test_the_builder_counts_instead_of_cutting():
    """No maxlength on the builder's text fields (a browser silently cuts a pasted text there);
    the title and description carry their limits for the counter (static/js/builder/counter.js)."""
    html = (ROOT / "templates" / "surveys" / "builder.html").read_text()
    for match in re.finditer(r"<(input|textarea)[^>]*>", html):
        tag = match.group(0)
        if 'type="number"' in tag or 'data-path="key"' in tag:
            continue  # numbers have no length; a key is an identifier (pattern and 64 shown)
        assert "maxlength" not in tag, tag
    assert 'data-limit="{{ title_max }}"' in html and 'data-counter-for="b-title"' in html


def test_the_builder_page_shows_the_title_limit(client, alice):
    client.force_login(alice)
    page = client.get("/surveys/new/")
    assert page.status_code == 200
    assert f'data-limit="{TITLE_MAX}"' in page.content.decode()
