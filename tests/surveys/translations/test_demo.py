"""The demo survey (seed_demo) is offered in Spanish: every question has its translation, and
the body passes the survey validator (docs/translations.md#demo)."""

from __future__ import annotations

import copy

from surveys import inputs
from surveys.definitions.demo_translations import with_spanish
from surveys.management.commands.seed_demo import DEMO_SURVEY


def test_every_demo_question_is_translated():
    body = with_spanish(copy.deepcopy(DEMO_SURVEY))
    assert body.get("languages") == ["en", "es"], "a demo question lacks its Spanish entry"
    spec = inputs.survey_spec(body)
    assert spec.languages == ("en", "es")
    assert set(spec.translations["es"]["questions"]) == {q["key"] for q in DEMO_SURVEY["questions"]}


def test_a_question_without_its_translation_leaves_the_demo_in_english():
    body = copy.deepcopy(DEMO_SURVEY)
    body["questions"].append({"key": "later", "text": "Added later?", "kind": "yes_no"})
    assert "languages" not in with_spanish(body)
