"""The no-JavaScript respondent form with optional questions and skip logic
(docs/respondent-pages.md#optional-questions, docs/respondent-pages.md#skip-logic): the words,
the "No answer" radio, a hidden answer ignored, a shown required one refused."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.models import Submission
from tests.surveys.pages.support import make_survey

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"key": "use", "text": "Used it?", "kind": "yes_no", "required": False},
    {"key": "age", "text": "Age group?", "kind": "category", "options": ["young", "old"]},
    {
        "key": "kids",
        "text": "Children?",
        "kind": "number",
        "min": 0,
        "max": 10,
        "show_if": {"key": "age", "in": ["old"]},
    },
]


@pytest.fixture
def survey(alice):
    return make_survey(alice, QUESTIONS)


def _post(client, survey, data):
    return client.post(reverse("respond-submit", args=[survey.slug]), data)


def test_words_and_the_no_answer_radio(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert 'Question 1 (optional) · <span class="js-only" hidden>randomized on this device' in html
    assert "You may leave this question unanswered: then nothing is sent for it." in html
    assert "No answer (nothing is sent for this question)" in html
    assert "Answer only if you answered “old” to “Age group?”; otherwise leave it unanswered." in (
        html
    )
    assert "Leave this question unanswered" in html  # the JS path's button (optional, randomized)


def test_optional_left_out_and_hidden_answer_ignored(client, survey):
    r = _post(client, survey, {"q-use": "", "q-age": "young", "q-kids": "3"})
    assert r.status_code == 302
    assert Submission.objects.get().answers == {"age": "young"}  # kids ignored: hidden


def test_shown_required_question_is_refused_when_left_out(client, survey):
    r = _post(client, survey, {"q-age": "old", "q-kids": ""})
    assert r.status_code == 400
    assert "This question must be answered." in r.content.decode()
    assert not Submission.objects.exists()
    r = _post(client, survey, {"q-use": "yes", "q-age": "old", "q-kids": "2"})
    assert r.status_code == 302
    assert Submission.objects.get().answers == {"use": True, "age": "old", "kids": 2}
