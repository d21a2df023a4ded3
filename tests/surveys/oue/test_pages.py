"""An OUE choice question on the respondent page (issue 26.1): the thresholds the browser draws
against (from the server), words true for one box per option, and the no-JavaScript path — a
coin for the true option and two coins per other option at ε = ln 3; at ε = 1 (q = 1/(e + 1),
which no coin or die gives) the page says the question needs JavaScript."""

from __future__ import annotations

import math

import pytest
from django.urls import reverse

from surveys.models import Submission
from tests.surveys.respondent.support import CATEGORY, make, page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]
OPTIONS = ["a", "b", "c"]
OUE = {
    "key": "brand",
    "text": "Brand?",
    "kind": "choice",
    "options": OPTIONS,
    "design": {"name": "oue", "epsilon": math.log(3)},
}


def test_page_data_carries_the_thresholds_and_epsilon(client, alice):
    _, data = page(client, make(alice, [OUE]))
    [q] = data["questions"]
    assert q["kind"] == "choice" and q["kind_name"] == "oue" and q["options"] == OPTIONS
    assert q["thresholds"] == {"keep": 2**52, "flip": 2**51}  # ½ and ¼ exactly
    assert q["epsilon"] == pytest.approx(math.log(3), rel=1e-15)
    reports = q["protection"]["reports"]["any"]
    assert reports["likelihood_ratio"] == pytest.approx(3.0)
    assert "at most 3 times as likely" in reports["text"]
    assert "60% likely" in reports["text"]  # e^ε/(e^ε + k − 1) = 3/5


def test_no_js_protocol_is_coins_per_option_and_posts_bits(client, alice):
    survey = make(alice, [OUE, CATEGORY])
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Your true answer: flip a coin. Heads: tick YES for it." in html
    assert "Every other option: Flip a coin twice. Heads then heads: tick YES" in html
    post = {"q-brand.0": "yes", "q-brand.1": "no", "q-brand.2": "yes", "q-region": "N"}
    r = client.post(reverse("respond-submit", args=[survey.slug]), post)
    assert r.status_code in (200, 302), r.content.decode()[:2000]
    stored = Submission.objects.get(survey=survey)
    assert stored.randomizer == "physical"
    assert stored.answers["brand"] == {"a": True, "b": False, "c": True}


def test_no_js_page_says_an_irrational_q_needs_javascript(client, alice):
    question = {**OUE, "design": {"name": "oue", "epsilon": 1.0}}
    html = client.get(reverse("respond", args=[make(alice, [question]).slug])).content.decode()
    assert "This question can't be randomized without JavaScript." in html
    assert "It sets each other option with probability 0.268, which coins or dice cannot" in html
