"""The respondent page in other languages, in real headless Chromium (docs/translations.md):
the demo survey in Spanish (Accept-Language es; content and interface, answered to the end),
the no-JS language switcher, and a right-to-left language at 360 px."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from surveys.definitions.demo_translations import with_spanish
from surveys.management.commands.seed_demo import DEMO_SURVEY, VOTE_OPTIONS
from surveys.models import Submission
from tests.e2e.respondent_support import check_axe, flip, no_sideways_scroll
from testsupport.factories import ensure_user, make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _demo() -> Any:
    body = with_spanish(copy.deepcopy(DEMO_SURVEY))
    assert body.get("languages") == ["en", "es"]  # the demo is fully translated
    return make_survey(ensure_user("alice", "pw-alice-123"), body)


def test_the_demo_survey_in_spanish_is_answered_to_the_end(live_server, new_page):
    survey = _demo()
    page, problems = new_page(locale="es-ES", viewport={"width": 360, "height": 740})
    page.set_default_timeout(30_000)
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.locator("h1").inner_text() == "Vida en el campus (demo)"
    assert "Tu privacidad" in page.locator("#intro").inner_text()

    step = page.locator("#step-cheated_exam")
    assert "¿Alguna vez has copiado en un examen?" in step.inner_text()
    assert step.locator("[data-role=flip]").inner_text() == "Lanzar las monedas"
    flip(page, "cheated_exam", "true")
    faces = step.locator(".coin").all_inner_texts()
    assert faces in (["CRUZ"], ["CARA", "CARA"], ["CARA", "CRUZ"]), faces
    result = step.locator("[data-role=result]").inner_text()
    assert "Registraremos" in result and ("SÍ" in result or "NO" in result)
    assert "tan probable" in result  # the deniability sentence, in Spanish
    no_sideways_scroll(page)
    step.locator("[data-role=next]").click()

    flip(page, "drove_after_drinking", "true", skip=True)
    assert "Resultado: " in page.locator("#step-drove_after_drinking .spinner-result").inner_text()
    page.locator("#step-drove_after_drinking [data-role=next]").click()

    vote = page.locator("#step-vote")
    labels = vote.locator("[data-truth]").all_inner_texts()
    assert labels == ["Partido A", "Partido B", "Partido C", "No voté"]
    flip(page, "vote", "Party B", skip=True)  # the button's value is the stored option
    page.locator("#step-vote [data-role=next]").click()

    # A step left unanswered is refused in Spanish.
    page.locator("#step-age_group [data-role=next]").click()
    assert "Elige una respuesta." in page.locator("#step-age_group").inner_text()
    page.locator("#step-age_group label", has_text="30-44").click()
    page.locator("#step-age_group [data-role=next]").click()
    assert "(opcional)" in page.locator("#step-hours_online legend").text_content()
    page.locator("#step-hours_online input").fill("12")
    page.locator("#step-hours_online [data-role=next]").click()

    crosswise = page.locator("#step-fake_receipt")
    assert "Mi madre nació en enero, febrero o marzo." in crosswise.inner_text()
    crosswise.locator("label", has_text="Distinta").click()
    crosswise.locator("[data-role=next]").click()

    flip(page, "bribe", "false", skip=True)
    assert "Grupo " in page.locator("#step-bribe [data-role=result]").inner_text()
    page.locator("#step-bribe [data-role=next]").click()

    # Skip logic: the children question is shown from 30 on (this respondent is 30-44).
    assert "¿Cuántos hijos tienes?" in page.locator("#step-children").inner_text()
    page.locator("#step-children input").fill("1")
    page.locator("#step-children [data-role=next]").click()
    likert = page.locator("#step-overwhelmed")
    assert likert.locator("[data-truth]").all_inner_texts() == [
        "Nunca",
        "Rara vez",
        "A veces",
        "A menudo",
        "Siempre",
    ]
    flip(page, "overwhelmed", "Often", skip=True)
    likert.locator("[data-role=next]").click()

    summary = page.locator("#step-summary").inner_text()
    assert "Antes de enviar: tu protección" in summary and "Se enviará: " in summary
    assert "Tu pérdida total de privacidad en esta encuesta es ε = " in summary
    assert "DISTINTA" in summary
    check_axe(page, "Spanish respondent page, summary")
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    assert "Gracias: tus respuestas se enviaron" in page.locator("#thanks").inner_text()

    body = json.loads(posts[-1].post_data)
    assert "?lang=es" in posts[-1].url
    # What is sent never depends on the language: stored option values, booleans.
    assert body["answers"]["vote"] in VOTE_OPTIONS
    assert body["answers"]["age_group"] == "30-44"
    assert body["answers"]["children"] == 1
    assert body["answers"]["overwhelmed"] in DEMO_SURVEY["questions"][-1]["options"]
    assert body["answers"]["fake_receipt"] is False
    assert Submission.objects.filter(survey=survey).count() == 1
    assert problems.messages == []


def test_the_switcher_works_without_javascript(live_server, new_page):
    survey = _demo()
    page, problems = new_page(locale="es-ES", java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("h1").inner_text() == "Vida en el campus (demo)"
    assert (
        "Lanza una moneda donde nadie pueda verla."
        in page.locator("#step-cheated_exam").inner_text()
    )
    # Each switch is a link, so a navigation: wait for the new page to load before reading it
    # (reading at once raced the load: `document.documentElement` was null mid-navigation).
    with page.expect_navigation():
        page.locator("#language-switcher a", has_text="English").click()
    assert page.locator("h1").inner_text() == "Campus life (demo)"
    assert page.evaluate("document.documentElement.lang") == "en"
    assert (
        "Flip a coin, where nobody can see it." in page.locator("#step-cheated_exam").inner_text()
    )
    with page.expect_navigation():
        page.locator("#language-switcher a", has_text="español").click()
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.locator("h1").inner_text() == "Vida en el campus (demo)"
    assert problems.messages == []


ARABIC = {
    "title": "الحياة الجامعية",
    "questions": {
        "cheated": {"text": "هل سبق لك أن غششت في امتحان؟"},
        "age": {
            "text": "فئتك العمرية",
            "options": {"18-29": "١٨–٢٩ سنة", "30+": "٣٠ سنة أو أكثر"},
        },
        "hours": {"text": "كم ساعة في الأسبوع تقضيها على الإنترنت للتسلية؟"},
    },
}
QUESTIONS = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {"key": "age", "text": "Your age group", "kind": "category", "options": ["18-29", "30+"]},
    {"key": "hours", "text": "Hours online per week", "kind": "number", "min": 0, "max": 80},
]


def test_right_to_left_at_phone_width(live_server, new_page):
    owner = ensure_user("alice", "pw-alice-123")
    body = {
        "title": "Campus life",
        "questions": QUESTIONS,
        "languages": ["en", "ar"],
        "translations": {"ar": ARABIC},
    }
    survey = make_survey(owner, body)
    page, problems = new_page(locale="ar", viewport={"width": 360, "height": 740})
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [
        "ar",
        "rtl",
    ]
    assert page.locator("h1").inner_text() == "الحياة الجامعية"
    no_sideways_scroll(page)
    # Laid out from the right: the question's text ends at the right edge of its box, and the
    # notice's accent border is on the right (logical properties).
    box = page.evaluate(
        """() => { const r = document.querySelector('#step-cheated .question-text')
             .getBoundingClientRect(); return [r.left, r.right, window.innerWidth]; }"""
    )
    assert box[1] > box[2] - 60 and box[0] >= 0, box
    flip(page, "cheated", "true", skip=True)
    no_sideways_scroll(page)
    page.locator("#step-cheated [data-role=next]").click()
    page.locator("#step-age label", has_text="٣٠ سنة أو أكثر").click()
    page.locator("#step-age [data-role=next]").click()
    page.locator("#step-hours input").fill("5")
    page.locator("#step-hours [data-role=next]").click()
    page.locator("#step-summary").wait_for()
    no_sideways_scroll(page)
    check_axe(page, "right-to-left respondent page, 360 px")
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    thanks = page.locator("#thanks")
    side = thanks.evaluate(
        "(e) => [getComputedStyle(e).borderRightWidth, getComputedStyle(e).borderLeftWidth]"
    )
    assert side == ["4px", "0px"], side
    no_sideways_scroll(page)
    assert Submission.objects.filter(survey=survey).count() == 1
    assert problems.messages == []


def test_switching_language_keeps_the_invitation_code(live_server, new_page):
    from testsupport.factories import make_invitations

    owner = ensure_user("alice", "pw-alice-123")
    body = {**with_spanish(copy.deepcopy(DEMO_SURVEY)), "access": "invite"}
    survey = make_survey(owner, body)
    token = make_invitations(survey, 1)[0]
    page, problems = new_page(locale="en-US")
    page.goto(f"{live_server.url}/s/{survey.slug}/#t={token}")
    assert page.locator("#id_token").input_value() == token
    assert "#" not in page.url  # taken out of the address bar, as before
    page.locator("#language-switcher a", has_text="español").click()
    # The Spanish page, once its script has run (the stepper is the script's doing).
    page.wait_for_function(
        "() => document.documentElement.lang === 'es'"
        " && document.getElementById('respond-form').classList.contains('stepper')"
    )
    assert page.locator("#id_token").input_value() == token
    assert "#" not in page.url
    assert problems.messages == []
