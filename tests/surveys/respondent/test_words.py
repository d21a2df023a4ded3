"""Respondent pages (issue 10): the words are true per question (randomized, sent as answered,
mixed)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.surveys.respondent.support import (
    DIRECT_ONLY,
    MIXED,
    RANDOMIZED_ONLY,
    PageText,
    make,
    page,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def test_randomized_only_survey_says_every_answer_is_randomized(client, alice):
    doc, data = page(client, make(alice, RANDOMIZED_ONLY))
    assert "Every answer in this survey is randomized" in doc.of("intro")
    assert "sent exactly as" not in doc.of("intro")
    assert doc.of("intro").count("Randomized before it is sent") == 2
    thanks = doc.of("thanks")
    assert "nobody who sees an answer can tell whether it is your true one" in thanks
    assert {q["protection"]["handling"] for q in data["questions"]} == {"randomized"}


def test_direct_only_survey_never_claims_randomization(client, alice):
    survey = make(alice, DIRECT_ONLY)
    doc, data = page(client, survey)
    intro, thanks = doc.of("intro"), doc.of("thanks")
    assert "No answer in this survey is randomized" in intro
    assert intro.count("Not randomized: sent exactly as you enter it.") == 2
    assert "sent exactly as you gave them" in thanks
    for false_claim in ("randomized answers left", "never sent", "true answers were"):
        assert false_claim not in thanks
    assert {q["protection"]["handling"] for q in data["questions"]} == {"direct"}
    # The no-JS path's thank-you page says the same.
    r = client.post(reverse("respond-submit", args=[survey.slug]), {"q-region": "N", "q-age": "30"})
    assert r.status_code == 302
    thanks_page = client.get(r["Location"]).content.decode()
    assert "sent exactly as you gave them" in thanks_page
    assert "never sent" not in thanks_page and "coins" not in thanks_page


def test_mixed_survey_names_each_question_handling(client, alice):
    survey = make(alice, MIXED)
    doc, data = page(client, survey)
    intro = doc.of("intro")
    assert "5 of your 7 answers are randomized before they are sent." in intro
    assert "2 are sent exactly as you enter them." in intro
    items = re.findall(
        r"Question (\d) \(([^)]*)\): (Randomized before it is sent|Not randomized)", intro
    )
    handling = {text: kind for _, text, kind in items}
    for q in MIXED:
        expected = (
            "Randomized before it is sent"
            if q["kind"] in ("yes_no", "choice")
            else ("Not randomized")
        )
        assert handling[q["text"]] == expected, q["key"]
    thanks = doc.of("thanks")
    assert "Only the randomized answers left this device" not in thanks
    assert "Your answers to the other questions were sent exactly as you gave them" in thanks
    # Every question listed with its key (the script removes those it did not send).
    assert "Randomized on this device: " + " ".join(q["text"] for q in MIXED[:5]) in thanks
    assert "Sent exactly as you gave them: " + " ".join(q["text"] for q in MIXED[5:]) in thanks
    # Per question in the data the summary step is built from.
    kinds = {q["key"]: q["protection"]["handling"] for q in data["questions"]}
    assert kinds == {
        "coin": "randomized", "fr": "randomized", "warner": "randomized", "uq": "randomized",
        "vote": "randomized", "region": "direct", "age": "direct",
    }  # fmt: skip
    # The no-JS thank-you page lists both groups.
    answers = {"q-coin": "yes", "q-fr": "no", "q-warner": "no", "q-uq": "yes"}
    # k-RR at ε = 0.7 over 3 options cannot be done with coins: the no-JS form refuses it.
    r = client.post(reverse("respond-submit", args=[survey.slug]), answers)
    assert r.status_code == 400
    thanks_page = client.get(reverse("respond-thanks", args=[survey.slug])).content.decode()
    assert "Your answers to the other questions were sent exactly as you gave them" in thanks_page
    parsed = PageText()
    parsed.feed(thanks_page)
    # The bare address does not know the answers: no list (tests/surveys/respondent/
    # test_words_true.py::test_no_js_thanks_lists_only_what_was_sent has the posted one).
    assert parsed.of("sent-direct") == "" and parsed.of("sent-randomized") == ""


def test_question_legends_say_randomized_or_sent_as_answered(client, alice):
    survey = make(alice, MIXED)
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    legends = re.findall(r"<legend>Question \d · (.*?)</legend>", html)
    # The script shows "on this device"; without it the respondent's own coin or die decides.
    randomized = (
        '<span class="js-only" hidden>randomized on this device</span>'
        '<span class="nojs-only">randomized with your coin or die</span>'
    )
    assert legends == [randomized] * 5 + ["sent as you answer"] * 2
