"""The negotiation and NaN policy on the real endpoints of both APIs: estimates and the export
(surveys), a release (privacy). ``?format=`` and ``Accept`` agree on every one of them."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import replace

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from surveys import selectors
from surveys.api import read_views
from testsupport.factories import make_release_survey as make_survey
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner():
    return make_user("owner")


@pytest.fixture
def survey(owner):
    return make_survey(owner, epsilon=1.0, respondents=12)


@pytest.fixture
def client(owner):
    c = APIClient()
    c.force_authenticate(owner)
    return c


@pytest.fixture
def release_url(client, survey, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("privacy-survey-releases", args=[survey.slug]),
            {"mechanism": "laplace", "epsilon": 0.5},
            format="json",
        )
    assert response.status_code == 202, response.content
    return response.json()["url"]


def _deterministic_urls(survey, release_url):
    return [reverse("api-survey-estimates", args=[survey.slug]), release_url]


def test_format_csv_equals_accept_csv_on_estimates_and_releases(client, survey, release_url):
    for url in _deterministic_urls(survey, release_url):
        by_query = client.get(url + "?format=csv")
        by_header = client.get(url, HTTP_ACCEPT="text/csv")
        assert by_query.status_code == by_header.status_code == 200
        assert by_query["Content-Type"] == by_header["Content-Type"] == "text/csv; charset=utf-8"
        assert by_query["Content-Disposition"] == by_header["Content-Disposition"]
        assert by_query.content == by_header.content
        assert by_query.content.decode().count("\r\n") >= 2  # one CSV dialect: CRLF


def test_format_json_equals_accept_json_on_estimates_and_releases(client, survey, release_url):
    for url in _deterministic_urls(survey, release_url):
        by_query = client.get(url + "?format=json")
        by_header = client.get(url, HTTP_ACCEPT="application/json")
        assert by_query["Content-Type"] == by_header["Content-Type"] == "application/json"
        assert by_query.json() == by_header.json()


def test_export_negotiates_like_the_others(client, survey):
    url = reverse("api-survey-export", args=[survey.slug])
    for response in (client.get(url + "?format=csv"), client.get(url, HTTP_ACCEPT="text/csv")):
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        text = b"".join(response.streaming_content).decode()
        assert len(list(csv.reader(io.StringIO(text, newline="")))) == 1 + 12
    for response in (
        client.get(url + "?format=json"),
        client.get(url, HTTP_ACCEPT="application/json"),
    ):
        assert response["Content-Type"] == "application/json"
    assert client.get(url)["Content-Type"].startswith("text/csv")  # the export's default


def test_unknown_format_is_a_400_naming_format_on_every_endpoint(client, survey, release_url):
    urls = _deterministic_urls(survey, release_url)
    urls.append(reverse("api-survey-export", args=[survey.slug]))
    for url in urls:
        response = client.get(url + "?format=xml", HTTP_ACCEPT="text/csv")
        assert response.status_code == 400, url
        assert response["Content-Type"] == "application/json"
        assert set(response.json()["errors"]) == {"format"}


def test_errors_are_json_when_csv_is_asked_for(client):
    for url in (
        reverse("api-survey-estimates", args=["nope"]),
        reverse("privacy-release-detail", args=["00000000-0000-4000-8000-000000000000"]),
    ):
        response = client.get(url, HTTP_ACCEPT="text/csv")
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"


def test_non_finite_estimates_are_null_in_json_and_empty_in_csv(client, survey, monkeypatch):
    real = selectors.survey_estimates

    def with_nan(**kwargs):
        estimates = real(**kwargs)
        first = replace(estimates.questions[0], std_error=math.nan, ci_high=math.inf)
        return replace(estimates, questions=(first, *estimates.questions[1:]))

    monkeypatch.setattr(read_views.selectors, "survey_estimates", with_nan)
    url = reverse("api-survey-estimates", args=[survey.slug])
    body = client.get(url).json()
    assert body["questions"][0]["std_error"] is None
    assert body["questions"][0]["ci_high"] is None
    rows = list(csv.DictReader(io.StringIO(client.get(url + "?format=csv").content.decode())))
    first = next(r for r in rows if r["key"] == "'cheated")
    assert first["std_error"] == "" and first["ci_high"] == ""
    assert first["estimate"] != ""
