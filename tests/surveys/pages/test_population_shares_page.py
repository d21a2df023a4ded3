"""The results page's population-shares form (docs/analysis.md#post-stratification): stored once
per survey, validated by the API's serializer, audited as survey.update, and the weighted
estimates shown beside the raw ones."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from audit.models import Entry
from surveys import services
from surveys.models import Survey
from testsupport import factories
from testsupport.factories import full_answers

K = 2
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


@pytest.fixture
def survey(alice) -> Survey:
    """The full survey (coin, mirror, party, age, hours), open."""
    draft = factories.make_survey(alice, open_=False)
    services.survey_open(survey=draft)
    draft.refresh_from_db()
    return draft


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _fill(survey: Survey) -> None:
    for age, coin in (("young", True), ("young", True), ("old", False), ("old", False)):
        factories.submit(survey, full_answers(age=age, coin=coin))


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_the_form_stores_the_shares_and_the_page_shows_weighted_estimates(alice, survey) -> None:
    _fill(survey)
    client = _client(alice)
    url = reverse("survey-population-shares", args=[survey.slug])
    response = client.post(url, {"poststratify": "age", "shares": "young:0.25,old:0.75"})
    assert response.status_code == 302
    results = reverse("survey-results", args=[survey.slug])
    assert response["Location"].endswith(results + "#weighting")
    survey.refresh_from_db()
    assert survey.population_shares == {"key": "age", "shares": {"young": 0.25, "old": 0.75}}
    entry = Entry.objects.filter(survey_pk=survey.pk, action="survey.update").first()
    assert entry is not None and entry.actor == "alice"
    assert entry.detail["fields"] == ["population_shares"]
    assert entry.detail["population_shares"]["shares"] == {"young": 0.25, "old": 0.75}
    html = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    assert 'id="weighting-summary"' in html
    assert "Weighted to the population shares" in html and "All respondents" in html
    assert "young 25.0%, old 75.0%" in html
    assert 'value="young:0.25,old:0.75"' in html
    assert "poststratify=age&amp;shares=young%3A0.25%2Cold%3A0.75&amp;format=csv" in html
    # The weighted coin estimate on the page is the API's: young π̂ = (1 − ¼)/½ = 1.5 (unclipped),
    # old (0 − ¼)/½ = −0.5, so ¼·1.5 + ¾·(−0.5) = 0 → shown as 0.0%.
    weighted = html.split('id="weighting-summary"')[1]
    assert 'data-key="coin"' in weighted and "0.0%" in weighted


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"poststratify": "age", "shares": "young:0.5,old:0.6"}, "sum to 1"),
        ({"poststratify": "coin", "shares": "yes:1"}, "not a direct category"),
        ({"poststratify": "age", "shares": "young=1"}, "&lt;option&gt;:&lt;share&gt;"),
        ({"poststratify": "age", "shares": ""}, "shares"),
    ],
)
def test_bad_shares_are_refused_with_the_reason(alice, survey, data, words) -> None:
    client = _client(alice)
    url = reverse("survey-population-shares", args=[survey.slug])
    response = client.post(url, data, follow=True)
    html = response.content.decode()
    assert "Population shares not saved" in html and words in html
    survey.refresh_from_db()
    assert survey.population_shares == {}
    assert not Entry.objects.filter(survey_pk=survey.pk, action="survey.update").exists()


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_too_small_a_group_is_stored_but_explained_and_shares_can_be_removed(alice, survey) -> None:
    # Shares are usually known before the data: stored, and the page says why nothing is shown.
    client = _client(alice)
    url = reverse("survey-population-shares", args=[survey.slug])
    client.post(url, {"poststratify": "age", "shares": '{"young": 0.5, "old": 0.5}'})
    survey.refresh_from_db()
    assert survey.population_shares["shares"] == {"young": 0.5, "old": 0.5}
    html = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    assert 'id="weighting-error"' in html and "&#x27;young&#x27;" in html
    assert 'id="weighting-summary"' not in html
    client.post(url, {"clear": "1"})
    survey.refresh_from_db()
    assert survey.population_shares == {}
    assert Entry.objects.filter(survey_pk=survey.pk, action="survey.update").count() == 2


def test_a_viewer_sees_no_form_and_cannot_post(alice, survey) -> None:
    viewer = factories.make_user("vic", "vic-pw-123")
    services.collaborator_set(survey=survey, username="vic", role="viewer")
    client = _client(viewer)
    html = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    assert 'id="weighting-form"' not in html
    url = reverse("survey-population-shares", args=[survey.slug])
    response = client.post(url, {"poststratify": "age", "shares": "young:0.5,old:0.5"})
    assert response.status_code in (403, 404)
    survey.refresh_from_db()
    assert survey.population_shares == {}
