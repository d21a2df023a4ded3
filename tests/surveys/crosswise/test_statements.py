"""Issue 21.9: crosswise protection faked through a translation.

The attack: the English innocuous statement is a vetted library one (p = ¼, ε = ln 3), the
Spanish one is true for everyone ("Tengo un nombre."), so a Spanish respondent's SAME/DIFFERENT is
their true answer — while the dashboard, the export metadata and the reports export showed only
the English statement and ε = ln 3. Every language's statement must be shown, and a statement
that is not the library's (``surveys/definitions/innocuous.py``, with its source prevalence) marked
unverified, in each of those places.
"""

from __future__ import annotations

import copy
import json

import pytest

from surveys.definitions.crosswise_statements import crosswise_statements, statement_check
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from tests.surveys.api.support import open_survey, url

pytestmark = pytest.mark.django_db

LIBRARY = INNOCUOUS_STATEMENTS[0]
TRUE_FOR_EVERYONE = "Tengo un nombre."
BODY = {
    "title": "Receipts",
    "languages": ["en", "es"],
    "translations": {
        "es": {
            "title": "Recibos",
            "questions": {
                "cross": {"text": "He usado un recibo falso.", "innocuous_text": TRUE_FOR_EVERYONE}
            },
        }
    },
    "questions": [
        {
            "key": "cross",
            "text": "I have used a fake receipt.",
            "kind": "yes_no",
            "design": {
                "name": "crosswise",
                "innocuous_prevalence": LIBRARY["prevalence"],
                "innocuous_text": LIBRARY["text"],
            },
        }
    ],
}


def _body(es_statement: str = TRUE_FOR_EVERYONE) -> dict:
    body = copy.deepcopy(BODY)
    body["translations"]["es"]["questions"]["cross"]["innocuous_text"] = es_statement
    return body


def _by_language(statements: list[dict]) -> dict[str, dict]:
    return {s["language"]: s for s in statements}


def test_a_translated_statement_that_is_not_the_library_one_is_unverified_everywhere(api, client):
    survey = open_survey(api, _body())
    client.force_login(survey.owner)

    # Export metadata: every language's statement, the Spanish one unverified.
    meta = api.get(url(survey, "responses/export/metadata/")).json()
    column = next(c for c in meta["columns"] if c["key"] == "cross")
    statements = _by_language(column["innocuous_statements"])
    assert set(statements) == {"en", "es"}
    assert statements["en"]["text"] == LIBRARY["text"] and statements["en"]["verified"] is True
    assert statements["es"]["text"] == TRUE_FOR_EVERYONE and statements["es"]["verified"] is False
    assert column["innocuous_verified"] is False
    assert "respondents_by_language" in meta  # said, not silently absent

    # The reports export (JSON) carries the same designs.
    export = json.loads(
        b"".join(api.get(url(survey, "responses/export/") + "?format=json").streaming_content)
    )
    exported = _by_language(export["designs"]["cross"]["innocuous_statements"])
    assert exported["es"]["verified"] is False and exported["es"]["text"] == TRUE_FOR_EVERYONE

    # The dashboard shows both statements and flags the Spanish one.
    from django.urls import reverse

    page = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    assert TRUE_FOR_EVERYONE in page and LIBRARY["text"].replace("'", "&#x27;") in page
    spanish = page[page.index(TRUE_FOR_EVERYONE) - 400 : page.index(TRUE_FOR_EVERYONE) + 400]
    assert "unverified" in spanish.lower()
    # The overview says so too, and links to the statements.
    overview = client.get(reverse("survey-detail", args=[survey.slug])).content.decode()
    assert 'id="unverified-crosswise"' in overview


def test_the_library_statement_in_every_language_is_verified(api):
    survey = open_survey(api, _body(LIBRARY["texts"]["es"]))
    meta = api.get(url(survey, "responses/export/metadata/")).json()
    column = next(c for c in meta["columns"] if c["key"] == "cross")
    assert all(s["verified"] for s in column["innocuous_statements"])
    assert column["innocuous_verified"] is True


def test_a_library_text_with_another_prevalence_is_unverified():
    check = statement_check(text=LIBRARY["text"], language="en", prevalence=0.4)
    assert check["verified"] is False and "0.250" in check["reason"]
    spaced = "  my mother was born in January,  February or March. "
    same = statement_check(text=spaced, language="en", prevalence=LIBRARY["prevalence"])
    assert same["verified"] is True and same["library_id"] == LIBRARY["id"]
    # The English text offered as the Spanish statement is not the Spanish library statement.
    assert (
        statement_check(text=LIBRARY["text"], language="es", prevalence=0.25)["verified"] is False
    )


def test_every_language_of_a_draft_is_listed(api):
    r = api.post("/api/v1/surveys/", _body(), format="json")
    assert r.status_code == 201, r.content
    from surveys.models import Survey

    survey = Survey.objects.get(slug=r.json()["slug"])
    q = survey.questions.get(key="cross")
    statements = crosswise_statements(survey, q)
    assert [s["language"] for s in statements] == ["en", "es"]
    assert [s["verified"] for s in statements] == [True, False]
