"""Server-rendered pages: the respondent form (JS and no-JS paths), closed, draft and
invite-only surveys."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from surveys.api.estimates import estimates_body as survey_estimates
from surveys.models import Submission
from surveys.services import survey_close
from tests.surveys.pages.support import (
    ALL_KINDS,
    assert_csp_clean,
    make_survey,
    parse,
    physical_post,
)

pytestmark = pytest.mark.django_db


def test_respondent_page_renders_every_kind(client, survey):
    response = client.get(reverse("respond", args=[survey.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    for q in ALL_KINDS:
        assert q["text"] in html
    assert "Flip a coin" in html  # physical protocol for the coin design
    assert 'id="survey-data"' in html
    assert "js/respond.js" in html
    # Fresh form: this browser only (Back keeps the one-time submission_id, DESIGN §8.4).
    assert response["Cache-Control"] == "private, no-cache"
    assert "script-src" in response["Content-Security-Policy"]


def test_respondent_page_has_no_inline_script_or_handlers(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert_csp_clean(html)


def test_true_answer_inputs_have_no_name(client, survey):
    doc = parse(client.get(reverse("respond", args=[survey.slug])).content.decode())
    truth = [attrs for tag, attrs in doc.elements if "data-truth" in attrs]
    # yes/no questions: 2 buttons each (3 of them), the choice question: one per option (4).
    assert len(truth) == 3 * 2 + 4
    for attrs in truth:
        assert "name" not in attrs
        assert attrs.get("type") == "button"  # a button never carries a value in a form post


def test_survey_data_carries_designs_and_deniability(client, survey):
    response = client.get(reverse("respond", args=[survey.slug]))
    import json
    import re

    doc = response.content.decode()
    match = re.search(r'<script id="survey-data" type="application/json">(.*?)</script>', doc, re.S)
    data = json.loads(match.group(1))
    by_key = {q["key"]: q for q in data["questions"]}
    coin = by_key["cheated"]
    assert coin["design"]["name"] == "forced_response"
    assert coin["epsilon"] == pytest.approx(1.0986, abs=1e-4)
    # Deniability (issue 10: a likelihood ratio and a 50–50 reference prior, not one 10% prior):
    # coin: P(yes | trait)/P(yes | no trait) = 0.75/0.25 = 3, and 3·½/(3·½ + ½) = 0.75.
    reports = coin["protection"]["reports"]
    assert reports["yes"]["likelihood_ratio"] == pytest.approx(3.0)
    assert reports["yes"]["posterior"] == pytest.approx(0.75)
    assert reports["no"]["likelihood_ratio"] == pytest.approx(3.0)
    assert data["api_url"] == f"/api/v1/surveys/{survey.slug}/responses/"
    assert data["epsilon_total"] == pytest.approx(
        sum(q.get("epsilon") or 0 for q in data["questions"])
    )


def test_no_js_form_stores_a_physical_submission(client, survey):
    response = client.post(reverse("respond-submit", args=[survey.slug]), physical_post(survey))
    assert response.status_code == 302
    assert response["Location"] == reverse("respond-thanks", args=[survey.slug])
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.id.version == 4
    estimates = survey_estimates(survey=survey)
    assert estimates["respondents"] == 1
    cheated = next(q for q in estimates["questions"] if q["key"] == "cheated")
    assert cheated["reported_yes"] == 1
    thanks = client.get(response["Location"])
    assert thanks.status_code == 200
    assert b"Thank you" in thanks.content


def test_no_js_form_errors_rerender_with_messages(client, survey):
    data = physical_post(survey, **{"q-age": "7", "q-vote": "Z"})
    del data["q-cheated"]
    response = client.post(reverse("respond-submit", args=[survey.slug]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Tick the answer your coin or die told you to record." in html
    assert 'id="err-age"' in html and 'id="err-vote"' in html
    assert Submission.objects.count() == 0
    assert_csp_clean(html)


def test_no_js_form_needs_no_csrf_cookie(survey):
    """Issue 11 §10: the respondent page sets no CSRF cookie (a year-long identifier riding on
    every submission) and the no-JS post needs none: respondents carry no ambient authority for
    a forged post to borrow (surveys.pages.views.respond_submit). Before: 403 without the token."""
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("respond", args=[survey.slug]))
    assert page.status_code == 200
    assert "csrfmiddlewaretoken" not in page.content.decode()
    assert not page.cookies and not client.cookies
    response = client.post(reverse("respond-submit", args=[survey.slug]), physical_post(survey))
    assert response.status_code == 302
    assert Submission.objects.count() == 1
    assert not response.cookies and not client.cookies


def test_closed_survey_page(client, survey):
    survey_close(survey=survey)
    response = client.get(reverse("respond", args=[survey.slug]))
    assert response.status_code == 200
    assert b"This survey is closed" in response.content
    response = client.post(reverse("respond-submit", args=[survey.slug]), physical_post(survey))
    assert b"This survey is closed" in response.content
    assert Submission.objects.count() == 0


def test_unknown_and_draft_surveys_are_404(client, alice):
    assert client.get(reverse("respond", args=["nosuchsurvey"])).status_code == 404
    draft = make_survey(alice, open_=False)
    assert client.get(reverse("respond", args=[draft.slug])).status_code == 404
    assert client.post(reverse("respond-submit", args=[draft.slug]), {}).status_code == 404


def test_invite_survey_token_field_and_used_token(client, alice):
    from testsupport.factories import invitations_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    [token] = invitations_create(survey=survey, count=1)
    page = client.get(reverse("respond", args=[survey.slug]))
    assert b'name="token"' in page.content
    missing = client.post(reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no"})
    assert missing.status_code == 400
    ok = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": token}
    )
    assert ok.status_code == 302
    again = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": token}
    )
    assert again.status_code == 409
    assert b"already used" in again.content
    unknown = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": "nope"}
    )
    assert unknown.status_code == 400
    assert b"Unknown invitation token" in unknown.content
    assert Submission.objects.filter(survey=survey).count() == 1


def test_physical_instructions_for_each_design(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Tails: answer truthfully" in html  # the coin design, verbatim protocol
    assert "Flip a coin twice." in html  # Warner p = 3/4: four equally likely outcomes
    assert "tick the opposite of your true answer" in html
    # k-RR with keep e^ε/(e^ε+k−1) = 3/6 = ½: a coin decides keep/swap, a die picks the other.
    assert "Heads: tick your true answer." in html
    assert "roll a die until it shows a number from 1 to 3" in html
    assert "number the other 3 options 1 to 3" in html


def test_k_rr_without_exact_physical_protocol_needs_javascript(client, alice):
    survey = make_survey(
        alice,
        [
            {
                "key": "v",
                "text": "Pick",
                "kind": "choice",
                "options": ["a", "b", "c"],
                "design": {"name": "k_rr", "epsilon": 1.0},
            }
        ],
    )
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "needs JavaScript" in html
    assert 'type="submit">Send my answers' not in html
