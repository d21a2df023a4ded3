"""Survey translations through the API (docs/translations.md#api): a complete translation per
non-default language, or a 400 naming the exact missing field; returned by the detail."""

from __future__ import annotations

import copy

import pytest

from tests.surveys.api.support import API
from tests.surveys.translations.support import ES, translated_body, without

pytestmark = pytest.mark.django_db


def test_a_complete_translation_is_stored_and_returned(api):
    r = api.post(f"{API}/surveys/", translated_body(), format="json")
    assert r.status_code == 201, r.json()
    slug = r.json()["slug"]
    detail = api.get(f"{API}/surveys/{slug}/").json()
    assert detail["languages"] == ["en", "es"]
    assert detail["translations"] == {"es": ES}
    # Only labels are translated: the stored options are unchanged.
    party = next(q for q in detail["questions"] if q["key"] == "party")
    assert party["options"] == ["a", "b", "c", "d"]


def test_a_survey_without_languages_returns_empty_ones(api):
    r = api.post(f"{API}/surveys/", translated_body(languages=[], translations={}), format="json")
    assert r.status_code == 201, r.json()
    assert r.json()["languages"] == [] and r.json()["translations"] == {}


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (("es", "title"), "translations.es.title"),
        (("es", "description"), "translations.es.description"),
        (("es", "questions", "mirror"), "translations.es.questions.mirror"),
        (("es", "questions", "coin", "text"), "translations.es.questions.coin.text"),
        (("es", "questions", "age", "options"), "translations.es.questions.age.options"),
        (
            ("es", "questions", "party", "options", "c"),
            "translations.es.questions.party.options.c",
        ),
        (("es",), "translations.es"),
    ],
)
def test_a_missing_piece_is_a_400_naming_its_path(api, path, field):
    r = api.post(f"{API}/surveys/", without(translated_body(), *path), format="json")
    assert r.status_code == 400
    errors = r.json()["errors"]
    assert list(errors) == [field], errors


def test_blank_strings_and_strays_are_refused_by_path(api):
    body = translated_body()
    es = body["translations"]["es"]
    es["questions"]["coin"]["text"] = "   "
    es["questions"]["party"]["options"]["z"] = "Z"  # not an option of the question
    es["questions"]["nope"] = {"text": "?"}  # no such question
    es["questions"]["hours"]["options"] = {}  # a number question has no options
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400
    assert set(r.json()["errors"]) == {
        "translations.es.questions.coin.text",
        "translations.es.questions.party.options.z",
        "translations.es.questions.nope",
        "translations.es.questions.hours.options",
    }


@pytest.mark.parametrize(
    ("languages", "translations"),
    [
        (["en", "xx"], {}),  # unknown code
        (["en", "es", "es"], {"es": ES}),  # duplicate
        ("en", {}),  # not a list
    ],
)
def test_bad_language_lists_are_refused(api, languages, translations):
    body = translated_body(languages=languages, translations=translations)
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400
    assert "languages" in r.json()["errors"], r.json()


def test_translations_for_unlisted_or_default_languages_are_refused(api):
    body = translated_body(translations={"es": ES, "fr": copy.deepcopy(ES), "en": ES})
    errors = api.post(f"{API}/surveys/", body, format="json").json()["errors"]
    assert set(errors) == {"translations.fr", "translations.en"}


def test_crosswise_needs_its_second_statement_translated(api):
    crosswise = {
        "key": "receipt",
        "text": "I faked a receipt.",
        "kind": "yes_no",
        "design": {
            "name": "crosswise",
            "innocuous_prevalence": 0.25,
            "innocuous_text": "My mother was born in January, February or March.",
        },
    }
    es = {"title": "T", "questions": {"receipt": {"text": "Falsifiqué un recibo."}}}
    body = {"title": "X", "questions": [crosswise], "languages": ["en", "es"]}
    r = api.post(f"{API}/surveys/", {**body, "translations": {"es": es}}, format="json")
    assert r.status_code == 400
    assert list(r.json()["errors"]) == ["translations.es.questions.receipt.innocuous_text"]
    es["questions"]["receipt"]["innocuous_text"] = "Mi madre nació en enero, febrero o marzo."
    r = api.post(f"{API}/surveys/", {**body, "translations": {"es": es}}, format="json")
    assert r.status_code == 201, r.json()


def test_patch_rechecks_the_stored_translation_against_new_questions(api):
    slug = api.post(f"{API}/surveys/", translated_body(), format="json").json()["slug"]
    extra = {"key": "new", "text": "New?", "kind": "yes_no"}
    questions = [*translated_body()["questions"], extra]
    r = api.patch(f"{API}/surveys/{slug}/", {"questions": questions}, format="json")
    assert r.status_code == 400
    assert list(r.json()["errors"]) == ["translations.es.questions.new"]
    # Nothing was changed by the refused update.
    detail = api.get(f"{API}/surveys/{slug}/").json()
    assert [q["key"] for q in detail["questions"]] == ["coin", "mirror", "party", "age", "hours"]
    # With the translation in the same PATCH it goes through; adding a language alone is checked.
    es = copy.deepcopy(ES)
    es["questions"]["new"] = {"text": "¿Nueva?"}
    r = api.patch(
        f"{API}/surveys/{slug}/",
        {"questions": questions, "translations": {"es": es}},
        format="json",
    )
    assert r.status_code == 200, r.json()
    r = api.patch(f"{API}/surveys/{slug}/", {"languages": ["en", "es", "fr"]}, format="json")
    assert r.status_code == 400 and list(r.json()["errors"]) == ["translations.fr"]
