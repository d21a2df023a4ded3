"""Export: every kind and design, words in two languages and skip logic, to an .xlsx that
pyxform converts and that imports back to the same survey."""

from __future__ import annotations

import pytest

from surveys.models import Survey
from tests.surveys.xlsform.support import XLSX, definition, upload, xform

pytestmark = pytest.mark.django_db

EVERY_KIND = {
    "title": "Every kind",
    "description": "About work",
    "questions": [
        {"key": "coin", "text": "Coin?", "kind": "yes_no"},
        {
            "key": "mirror",
            "text": "Warner?",
            "kind": "yes_no",
            "design": {"name": "warner", "p": 0.75},
        },
        {
            "key": "cross",
            "text": "Did you cheat?",
            "kind": "yes_no",
            "design": {
                "name": "crosswise",
                "innocuous_prevalence": 0.25,
                "innocuous_text": "My mother was born in January, February or March.",
            },
        },
        {
            "key": "cheat",
            "text": "Did you steal?",
            "kind": "yes_no",
            "design": {
                "name": "cheater_detection",
                "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
            },
        },
        {
            "key": "party",
            "text": "Which party?",
            "kind": "choice",
            "options": ["a", "b c", "d"],
            "design": {"name": "k_rr", "epsilon": 1.0},
        },
        {
            "key": "agree",
            "text": "Agree?",
            "kind": "choice",
            "options": ["No", "Maybe", "Yes"],
            "ordered": True,
            "design": {"name": "k_rr", "epsilon": 2},
        },
        {
            "key": "drugs",
            "text": "Which?",
            "kind": "multi",
            "options": ["cannabis", "other drug"],
            "design": {"name": "two_probability", "p_yes_if_trait": 0.7, "p_yes_if_not": 0.2},
        },
        {"key": "age", "text": "Age group", "kind": "category", "options": ["<30", "30+"]},
        {
            "key": "hours",
            "text": "Hours",
            "kind": "number",
            "min": 0,
            "max": 80.5,
            "required": False,
            "show_if": {"key": "age", "in": ["30+"]},
        },
        {"key": "kids", "text": "Children", "kind": "number", "min": 0, "max": 20, "integer": True},
    ],
}


def test_every_kind_exports_converts_and_imports_back(api):
    created = api.post("/api/v1/surveys/", EVERY_KIND, format="json")
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    response = api.get(f"/api/v1/surveys/{slug}/xlsform/")
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX
    data = response.content
    assert "<h:title>Every kind</h:title>" in xform(data)
    Survey.objects.filter(slug=slug).delete()  # its slug is the form's form_id
    imported = upload(api, data)
    assert imported.status_code == 201, imported.json()
    assert imported.json()["slug"] == slug
    assert imported.json()["status"] == "draft"
    assert definition(imported.json()) == definition(created.json())


def test_text_an_xlsx_cannot_carry_is_a_409_naming_the_question(api):
    body = {"title": "Bell", "questions": [{"key": "bell", "text": "Ring\x07?", "kind": "yes_no"}]}
    created = api.post("/api/v1/surveys/", body, format="json")
    assert created.status_code == 201, created.json()
    response = api.get(f"/api/v1/surveys/{created.json()['slug']}/xlsform/")
    assert response.status_code == 409
    assert "'bell'" in response.json()["detail"]


def test_two_languages_and_a_formula_looking_label(api):
    body = {
        "title": "Dos",
        "description": "About you",
        "languages": ["en", "es"],
        "questions": [
            {"key": "sum", "text": "=1+1 is what?", "kind": "category", "options": ["2", "=2"]},
            {
                "key": "cross",
                "text": "Did you?",
                "kind": "yes_no",
                "design": {
                    "name": "crosswise",
                    "innocuous_prevalence": 0.25,
                    "innocuous_text": "Born in spring.",
                },
            },
        ],
        "translations": {
            "es": {
                "title": "Dos (es)",
                "description": "Sobre usted",
                "questions": {
                    "sum": {"text": "¿=1+1 es?", "options": {"2": "dos", "=2": "=dos"}},
                    "cross": {"text": "¿Lo hizo?", "innocuous_text": "Nací en primavera."},
                },
            }
        },
    }
    created = api.post("/api/v1/surveys/", body, format="json")
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    data = api.get(f"/api/v1/surveys/{slug}/xlsform/").content
    xform(data)
    Survey.objects.filter(slug=slug).delete()
    imported = upload(api, data)
    assert imported.status_code == 201, imported.json()
    assert definition(imported.json()) == definition(created.json())
