"""Every respondent sentence true for its design, in English and Spanish (issue 22 items 2, 4, 6).

The rule (docs/respondent-pages.md#what-stays): when chance keeps the truth, the recorded answer
IS the true one, so no sentence may say the true answer is never sent, never leaves the device or
is not sent. What is true, and what every randomized design's page must say: chance's result
stays with the respondent, and whoever sees the recorded answer cannot tell whether it is the
truth or chance's. Rendered here: the page (JS and no-JS parts, the in-page thank-you), the
script's strings, each question's protection words, the no-JS thank-you and the home page.
"""

from __future__ import annotations

import html as html_lib
import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from surveys.pages.respond_strings import respond_strings
from tests.surveys.respondent.support import (
    CATEGORY,
    COIN,
    FR,
    KRR,
    NUMBER,
    UQ,
    WARNER,
    make,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]

MULTI = {
    "key": "multi",
    "text": "Which have you done?",
    "kind": "multi",
    "options": ["A", "B"],
}
CROSSWISE = {
    "key": "cw",
    "text": "I cheated on my taxes.",
    "kind": "yes_no",
    "design": {
        "name": "crosswise",
        "innocuous_prevalence": 0.25,
        "innocuous_text": "My mother was born in January, February or March.",
    },
}
CHEATER = {
    "key": "cd",
    "text": "Have you bribed anyone?",
    "kind": "yes_no",
    "design": {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
    },
}
DESIGNS = {
    "coins": COIN, "forced": FR, "warner": WARNER, "unrelated": UQ, "k_rr": KRR,
    "multi": MULTI, "cheater": CHEATER,
}  # fmt: skip

# Claims that the true answer is not sent: false whenever chance keeps the truth.
FORBIDDEN = {
    "en": [
        r"never sent", r"never leave", r"never leaves", r"not sent", r"never saved",
        r"true answers? (?:is|are) not", r"never your true",
    ],
    "es": [
        r"nunca se env", r"nunca sal", r"no se env[ií]a(?:n)? (?:tu|tus) respuesta",
        r"nunca se guard", r"nunca tus respuestas",
    ],
}  # fmt: skip
# What must be said on every randomized design's page.
REQUIRED = {
    "en": [r"stays here", r"cannot tell whether it is your true answer or one picked by chance"],
    "es": [r"se queda aquí", r"no puede saber si es tu respuesta verdadera o una elegida al azar"],
}


def _make(alice, questions):
    """A survey offered in English and Spanish (the question texts stay as written)."""
    from surveys.services import survey_open

    survey = make(alice, questions, open_=False)
    survey.languages = [
        "en",
        "es",
    ]  # set while a draft: frozen once open (surveys/definitions/freeze.py)
    survey.save(update_fields=["languages"])
    survey_open(survey=survey)
    return survey


def _text(html: str) -> str:
    """The page's words: tags dropped, entities decoded, JSON islands included as text."""
    found = re.findall(r'<script id="[^"]+" type="application/json">(.*?)</script>', html, re.S)
    islands = " ".join(" ".join(_strings(json.loads(html_lib.unescape(m)))) for m in found)
    body = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", body) + " " + islands).split())


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check(text: str, lang: str, where: str, *, randomized: bool) -> None:
    for claim in FORBIDDEN[lang]:
        found = re.search(claim, text, re.I)
        context = text[max(0, found.start() - 120) : found.end() + 60] if found else ""
        assert found is None, f"{where}: {claim!r} in …{context}…"
    if randomized:
        for statement in REQUIRED[lang]:
            assert re.search(statement, text), f"{where}: missing {statement!r}"


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("design", list(DESIGNS))
def test_each_design_page_says_what_is_true(alice, design, lang):
    survey = _make(alice, [DESIGNS[design], CATEGORY, NUMBER])
    client = Client()
    html = client.get(reverse("respond", args=[survey.slug]), {"lang": lang}).content.decode()
    _check(_text(html), lang, f"{design} page ({lang})", randomized=True)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_crosswise_and_direct_pages_claim_no_draw(alice, lang):
    survey = _make(alice, [CROSSWISE, CATEGORY, NUMBER])
    html = Client().get(reverse("respond", args=[survey.slug]), {"lang": lang}).content.decode()
    _check(_text(html), lang, f"crosswise page ({lang})", randomized=False)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_script_strings_and_thanks_pages(alice, lang):
    with translation.override(lang):
        _check(" ".join(respond_strings().values()), lang, "script strings", randomized=False)
    survey = _make(alice, [COIN, CATEGORY, NUMBER])
    thanks = Client().get(reverse("respond-thanks", args=[survey.slug]), {"lang": lang})
    _check(_text(thanks.content.decode()), lang, "no-JS thanks", randomized=False)


def test_home_page_claim(client):
    _check(_text(client.get("/").content.decode()), "en", "home", randomized=False)


def test_no_js_legends_do_not_say_on_this_device(client, alice):
    survey = make(alice, [COIN, KRR, CATEGORY])
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    legends = re.findall(r"<legend>(.*?)</legend>", html, re.S)
    # "on this device" only inside the part the script shows (js-only, hidden without it).
    for legend in legends[:2]:
        visible = re.sub(r'<span class="js-only" hidden>.*?</span>', "", legend)
        assert "on this device" not in visible and "coin or die" in visible, legend


def test_no_js_refusals_word_one_mistake_one_way(client, alice):
    """An unanswered randomized question reads the same for every design (issue 22 item 4)."""
    survey = make(alice, [COIN, FR, UQ, CATEGORY, NUMBER])
    html = client.post(reverse("respond-submit", args=[survey.slug]), {}).content.decode()
    summary = re.findall(r'<li><a href="[^"]*">([^<]*)</a></li>', html)
    assert summary == [
        "Question 1: Tick the answer your coin or die told you to record.",
        "Question 2: Tick the answer your coin or die told you to record.",
        "Question 3: Tick the answer your coin or die told you to record.",
        "Question 4: Choose an answer.",
        "Question 5: Enter a number from 18 to 99.",
    ]


def test_no_js_thanks_lists_only_what_was_sent(client, alice):
    """Issue 22 item 6: the lists name what was sent; the unanswered sentence only when one was
    left out, with its plural right; the crosswise sentence is a proper sentence."""
    hours = {**NUMBER, "key": "hours", "text": "Hours online?", "required": False}
    survey = make(alice, [COIN, CROSSWISE, CATEGORY, hours])
    url = reverse("respond-thanks", args=[survey.slug])
    base = {"q-coin": "yes", "q-cw": "same", "q-region": "N"}
    left_out = _text(client.post(url, base).content.decode())
    assert "Nothing was sent for the question you left unanswered" in left_out
    assert "Hours online?" not in left_out  # not listed: it was not sent
    assert "One question asks only whether two statements" in left_out
    assert not re.search(r"\b1 asks", left_out)
    all_answered = _text(client.post(url, {**base, "q-hours": "30"}).content.decode())
    assert "Nothing was sent" not in all_answered and "unanswered" not in all_answered
    assert "Sent exactly as you gave them Where do you live? Hours online?" in all_answered
