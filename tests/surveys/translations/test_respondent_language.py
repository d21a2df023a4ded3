"""The respondent page's language (docs/translations.md#choice): ?lang=, else Accept-Language ∩
the survey's languages, else its default; content from the survey's translation, interface
from the catalogues (English for a language with none), <html lang dir>, the switcher."""

from __future__ import annotations

import copy
import json
import re

import pytest
from django.urls import reverse

from tests.surveys.translations.support import ES, translated_body
from testsupport.factories import make_survey

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _open(alice, **overrides):
    return make_survey(alice, translated_body(**overrides))


def _data(html: str, node: str = "survey-data") -> dict:
    match = re.search(rf'<script id="{node}" type="application/json">(.*?)</script>', html, re.S)
    assert match, node
    return json.loads(match.group(1))


def _get(client, survey, query: str = "", **headers):
    r = client.get(reverse("respond", args=[survey.slug]) + query, **headers)
    assert r.status_code == 200
    return r, r.content.decode()


def test_accept_language_es_gives_spanish_content_and_interface(client, alice):
    survey = _open(alice)
    r, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9,en;q=0.5")
    assert r["Content-Language"] == "es"
    assert "Accept-Language" in r["Vary"]
    assert '<html lang="es" dir="ltr">' in html
    assert "<h1>Todas las clases</h1>" in html
    assert "¿Pregunta de moneda?" in html and "Coin question?" not in html
    assert "Enviar mis respuestas" in html and "Send my answers" not in html
    assert "Cómo se protegen tus respuestas" in html
    # The deniability words come from the Spanish catalogue, with the option labels.
    data = _data(html)
    party = next(q for q in data["questions"] if q["key"] == "party")
    assert party["options"] == ["a", "b", "c", "d"]  # values sent: unchanged
    assert party["labels"] == ES["questions"]["party"]["options"]
    assert party["protection"]["reports"]["a"]["text"].startswith("Un «A» registrado es ")
    assert "tan probable" in party["protection"]["reports"]["a"]["text"]
    coin = next(q for q in data["questions"] if q["key"] == "coin")
    assert coin["protection"]["randomizer"]["button"] == "Lanzar las monedas"
    assert "cruz" in coin["protection"]["randomizer"]["how"]
    # The page script's words and the endpoint it posts to follow the same language.
    assert (
        _data(html, "respond-strings")["coins_truth"] == "Cruz: se registra tu respuesta verdadera."
    )
    assert data["api_url"].endswith("?lang=es")
    # The no-JS physical protocol and its radios are Spanish too; radio values stay the options.
    assert "Lanza una moneda donde nadie pueda verla." in html
    assert 'value="young"' in html and "joven" in html


def test_english_by_default_and_for_unoffered_languages(client, alice):
    survey = _open(alice)
    for header in ("", "de-DE,de;q=0.9", "en-US"):
        r, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE=header)
        assert r["Content-Language"] == "en"
        assert "<h1>Every kind</h1>" in html and "Send my answers" in html


def test_a_survey_without_languages_stays_in_its_own_language(client, alice):
    survey = _open(alice, languages=[], translations={})
    r, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE="es")
    assert r["Content-Language"] == "en" and "Send my answers" in html
    assert 'id="language-switcher"' not in html  # nothing to switch to


def test_the_switcher_overrides_accept_language_without_javascript(client, alice):
    survey = _open(alice)
    _, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE="es")
    switcher = re.search(r'<nav class="languages".*?</nav>', html, re.S).group(0)
    assert 'href="?lang=en"' in switcher and 'href="?lang=es"' in switcher
    assert re.search(r'aria-current="true" lang="es"[^>]*>español<', switcher)
    r, html = _get(client, survey, "?lang=en", HTTP_ACCEPT_LANGUAGE="es")
    assert r["Content-Language"] == "en" and "<h1>Every kind</h1>" in html
    # A language the survey does not offer is ignored.
    r, _ = _get(client, survey, "?lang=fr", HTTP_ACCEPT_LANGUAGE="es")
    assert r["Content-Language"] == "es"
    # No cookie is set for the choice (respondent pages set none).
    assert not r.cookies


def test_a_language_without_a_catalogue_shows_its_content_with_an_english_interface(client, alice):
    fr = copy.deepcopy(ES)
    fr["title"] = "Toutes les sortes"
    survey = _open(alice, languages=["en", "fr"], translations={"fr": fr})
    r, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE="fr")
    assert r["Content-Language"] == "fr" and '<html lang="fr" dir="ltr">' in html
    assert "<h1>Toutes les sortes</h1>" in html
    assert "Send my answers" in html  # no French catalogue: the interface falls back to English


def test_right_to_left_languages_set_dir_rtl(client, alice):
    ar = copy.deepcopy(ES)
    ar["title"] = "كل الأنواع"
    survey = _open(alice, languages=["ar", "en"], translations={"en": ar})
    # The default language (first) is Arabic: the survey's own words; dir follows the language.
    _, html = _get(client, survey)
    assert '<html lang="ar" dir="rtl">' in html and "<h1>Every kind</h1>" in html
    _, html = _get(client, survey, "?lang=en")
    assert '<html lang="en" dir="ltr">' in html and "<h1>كل الأنواع</h1>" in html


def test_the_no_js_form_keeps_the_language_through_errors_and_thanks(client, alice):
    survey = _open(alice)
    submit = reverse("respond-thanks", args=[survey.slug]) + "?lang=es"
    _, html = _get(client, survey, "?lang=es")
    assert f'action="{submit}"' in html
    r = client.post(submit, {"q-age": "young"})
    assert r.status_code == 400
    body = r.content.decode()
    assert "Tus respuestas no se enviaron" in body and '<html lang="es"' in body
    answers = {"q-coin": "yes", "q-mirror": "no", "q-party": "b", "q-age": "old", "q-hours": "12"}
    r = client.post(submit, answers)
    assert r.status_code == 200  # thanked in the response (it lists what was sent)
    thanks = r.content.decode()
    assert "Gracias: tus respuestas se registraron" in thanks
    assert "¿Pregunta de moneda?" in thanks


def test_the_responses_endpoint_refuses_in_the_page_language(client, alice):
    survey = _open(alice)
    url = _data(_get(client, survey, "?lang=es")[1])["api_url"]
    body = {
        "submission_id": "6f1c2e9b-7d5a-4c3b-8e6f-0f1c2e9b7d5a",
        "randomizer": "browser",
        "answers": {"coin": True, "mirror": False, "party": "zzz", "age": "old", "hours": 1},
    }
    r = client.post(url, body, content_type="application/json")
    assert r.status_code == 400
    assert r.json()["errors"]["answers.party"] == ["Debe ser una de las opciones de la pregunta."]
    # Researcher endpoints keep English whatever the header says (the API contract's words).
    r = client.post(
        "/api/v1/surveys/", {}, content_type="application/json", HTTP_ACCEPT_LANGUAGE="es"
    )
    assert "Content-Language" not in r


def test_a_survey_written_in_spanish_only_has_a_spanish_interface(client, alice):
    survey = _open(alice, languages=["es"], translations={})
    r, html = _get(client, survey, HTTP_ACCEPT_LANGUAGE="en-US,en")
    assert r["Content-Language"] == "es" and "Enviar mis respuestas" in html
    assert 'id="language-switcher"' not in html
