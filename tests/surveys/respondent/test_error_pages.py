"""Respondent pages (issue 10): branded 404, closed and used-invitation pages, and the no-JS error
summary linked to the fields."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.models import Submission
from surveys.services import survey_close
from tests.surveys.respondent.support import CATEGORY, COIN, NUMBER, PageText, make
from testsupport.factories import invitations_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def test_bad_survey_link_gets_a_branded_404_page_and_api_404s_stay_json(client):
    r = client.get("/s/no-such-survey/")
    assert r.status_code == 404
    html = r.content.decode()
    assert "We can't find that page" in html
    assert 'class="brand"' in html and "What to do" in html
    assert 'href="/"' in html
    r = client.get("/api/v1/surveys/no-such-survey/estimates/")
    assert r.status_code in (401, 403, 404) and r["Content-Type"].startswith("application/json")
    r = client.get("/api/v1/no/such/route/")
    assert r.status_code == 404 and r.json() == {"error": "not_found", "detail": "Not found."}


def test_closed_page_says_what_happened_and_what_to_do(client, alice):
    survey = make(alice, [COIN])
    survey_close(survey=survey)
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "This survey is closed" in html and 'class="brand"' in html
    assert "Nothing you entered was sent" in html
    assert "What to do:" in html


def test_used_invitation_page_says_what_to_do(client, alice):
    survey = make(alice, [COIN], access="invite")
    [token] = invitations_create(survey=survey, count=1)
    url = reverse("respond-submit", args=[survey.slug])
    assert client.post(url, {"token": token, "q-coin": "yes"}).status_code == 302
    r = client.post(url, {"token": token, "q-coin": "no"})
    assert r.status_code == 409
    html = r.content.decode()
    assert "This invitation was already used" in html
    assert "your answers were not recorded" in html
    assert "What to do:" in html and "ask the researcher who invited you" in html
    assert Submission.objects.filter(survey=survey).count() == 1


def test_no_js_refusal_has_an_error_summary_linked_to_the_fields(client, alice):
    survey = make(alice, [COIN, CATEGORY, NUMBER], access="invite")
    r = client.post(reverse("respond-submit", args=[survey.slug]), {"q-age": "7"})
    assert r.status_code == 400
    html = r.content.decode()
    doc = PageText()
    doc.feed(html)
    assert "error-summary" in doc.ids
    # The summary comes first in the form, before the intro and the questions.
    assert html.index('id="error-summary"') < html.index('id="intro"')
    links = re.findall(r'<li><a href="#([^"]+)">([^<]*)</a></li>', html)
    targets = [target for target, _ in links]
    assert targets == ["id_token", "id_q-coin_0", "id_q-region_0", "id_q-age"]
    for target in targets:
        assert target in doc.ids, target  # every link lands on a real field
    texts = [text for _, text in links]
    assert texts[0].startswith("Invitation code:")
    assert texts[1].startswith("Question 1:") and texts[3].startswith("Question 3:")
    assert "18" in texts[3]  # the number's bound is named
    # A clean GET has no summary.
    assert (
        'id="error-summary"'
        not in client.get(reverse("respond", args=[survey.slug])).content.decode()
    )
