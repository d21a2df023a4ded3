"""Releases by selection (issue 30, docs/api.md#releases-by-selection): median, quantile and
mode by the exponential mechanism through the API; the ledger charge; bad input refused with a
4xx naming the field and nothing charged."""

from __future__ import annotations

import csv
import io
import math

import pytest
from django.test import override_settings

from dpcore.central import event_codec
from dpcore.central.events import BoundedRangeEvent
from privacy.models import LedgerEntry, Release
from tests.privacy.api.support import url
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


def _post(client, survey, body, capture):
    with capture(execute=True):
        return client.post(url(survey), body, format="json")


@pytest.mark.parametrize(
    ("statistic", "q", "key"),
    [("median", None, "age"), ("quantile", 0.9, "age"), ("mode", None, "region")],
)
def test_each_statistic_completes_and_charges_epsilon(
    client, survey, django_capture_on_commit_callbacks, statistic, q, key
):
    body = {"mechanism": "exponential", "epsilon": 0.4, "statistic": statistic, "questions": [key]}
    if q is not None:
        body["q"] = q
    response = _post(client, survey, body, django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    detail = client.get(response.json()["url"]).json()
    assert detail["status"] == "done"
    assert detail["mechanism"] == "exponential" and detail["statistic"] == statistic
    entry = detail["results"]["questions"][0]
    assert entry["key"] == key and entry["statistic"] == statistic
    bound = entry["expected_error"]
    assert bound["probability"] == 0.95 and bound["bound"] > 0
    if statistic == "mode":
        assert entry["option"] in ("north", "south") and entry["value"] is None
        assert bound["measure"] == "count_gap"
        assert bound["bound"] == pytest.approx(math.log(2 / 0.05) / 0.4)
    else:
        assert entry["q"] == (q or 0.5)
        assert 18.0 <= entry["value"] <= 99.0
        assert round(entry["value"] / 0.05, 6).is_integer()  # on the release grid
        assert bound["measure"] == "rank_error"
    ledger = LedgerEntry.objects.get(release_id=detail["id"])
    assert event_codec.decode(ledger.event) == [BoundedRangeEvent(math.nextafter(0.4, math.inf))]
    assert not ledger.refunded
    assert detail["charged_epsilon"] <= 0.4 * (1 + 1e-9)


@override_settings(DENIABLE_MAX_BUDGET_EPSILON=5000)
def test_large_epsilon_finds_the_true_median_and_mode(
    client, owner, django_capture_on_commit_callbacks
):
    """ε = 2000 on one question: a point whose rank score is 1 below the best (in units of
    b = 2) has relative weight ≤ e^{−2000/2}, and there are 1621 grid points: the draw is a
    best point except with probability < 1621·e^{−1000}. Ages 20…49 (30 respondents,
    20 + i % 50): the best points are those strictly between 34 and 35, with 15 values on
    either side."""
    rich = make_survey(owner, epsilon=5000.0, respondents=30)
    body = {"mechanism": "exponential", "epsilon": 2000, "statistic": "median"}
    response = _post(client, rich, body, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    detail = client.get(response.json()["url"]).json()
    assert detail["questions"] == ["age"]  # the default: every number question
    value = detail["results"]["questions"][0]["value"]
    assert 34.0 <= value <= 35.0
    body = {"mechanism": "exponential", "epsilon": 2000, "statistic": "mode", "questions": ["drug"]}
    response = _post(client, rich, body, django_capture_on_commit_callbacks)
    detail = client.get(response.json()["url"]).json()
    # Reported options: i % 3 → none, cannabis, other, 10 each: any is a mode; it is one of them.
    assert detail["results"]["questions"][0]["option"] in ("none", "cannabis", "other")


def test_csv_follows_the_one_csv_rule(client, survey, django_capture_on_commit_callbacks):
    body = {"mechanism": "exponential", "epsilon": 0.5, "statistic": "quantile", "q": 0.25}
    response = _post(client, survey, body, django_capture_on_commit_callbacks)
    detail_url = response.json()["url"]
    text = client.get(detail_url, {"format": "csv"}).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 1
    # The one CSV rule (deniable.csv_cells): a text cell is ' + the text.
    assert rows[0]["question"] == "'age" and rows[0]["option"] == "'quantile 0.25"
    assert 18.0 <= float(rows[0]["estimate"]) <= 99.0
    assert rows[0]["mechanism"] == "'exponential"


def test_preview_gives_the_bound_and_charges_nothing(client, survey):
    body = {"mechanism": "exponential", "epsilon": 0.5, "statistic": "median"}
    response = client.post(url(survey) + "preview/", body, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["epsilon_cost"] <= 0.5 * (1 + 1e-9) and data["fits"]
    (age,) = data["questions"]
    grid = age["expected_error"]["candidates"]
    assert grid == 1621  # 18, 18.05, …, 99
    assert age["expected_error"]["bound"] == pytest.approx(2 * 0.5 * math.log(grid / 0.05) / 0.5)
    assert not LedgerEntry.objects.filter(survey=survey).exists()
    assert not Release.objects.filter(survey=survey).exists()


BAD = [
    ({"statistic": "quantile"}, "q"),
    ({"statistic": "quantile", "q": 0}, "q"),
    ({"statistic": "quantile", "q": 1}, "q"),
    ({"statistic": "quantile", "q": 1.5}, "q"),
    ({"statistic": "median", "q": 0.5}, "q"),
    ({"statistic": "mode", "q": 0.5, "questions": ["region"]}, "q"),
    ({"statistic": "median", "questions": ["region"]}, "questions"),
    ({"statistic": "quantile", "q": 0.3, "questions": ["cheated"]}, "questions"),
    ({"statistic": "mode", "questions": ["age"]}, "questions"),
    ({"statistic": "mode", "questions": ["cheated"]}, "questions"),
    ({"statistic": "average"}, "statistic"),
    ({}, "statistic"),
    ({"statistic": "median", "delta": 1e-6}, "delta"),
    ({"statistic": "median", "group_by": "region"}, "group_by"),
    ({"statistic": "median", "epsilon": None}, "epsilon"),
    ({"statistic": "quantile", "q": "half"}, "q"),
    ({"statistic": "quantile", "q": True}, "q"),
    ({"statistic": "quantile", "q": [0.5]}, "q"),
    ({"statistic": ["median"]}, "statistic"),
    ({"statistic": "median", "questions": ["age", "age"]}, "questions"),
    ({"statistic": "median", "questions": ["nope"]}, "questions"),
]


@pytest.mark.parametrize(("extra", "field"), BAD)
def test_bad_input_names_the_field_and_charges_nothing(client, survey, extra, field):
    body = {"mechanism": "exponential", "epsilon": 0.5, **extra}
    response = client.post(url(survey), body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not LedgerEntry.objects.filter(survey=survey).exists()


def test_statistic_refused_with_laplace(client, survey):
    body = {"mechanism": "laplace", "epsilon": 0.5, "statistic": "median"}
    response = client.post(url(survey), body, format="json")
    assert response.status_code == 400
    assert "statistic" in response.json()["errors"]


@pytest.mark.parametrize("statistic", ["median", "mode"])
def test_no_published_answers_is_refused(client, owner, statistic):
    empty = make_survey(owner, epsilon=1.0, respondents=0)
    body = {"mechanism": "exponential", "epsilon": 0.5, "statistic": statistic}
    for path in (url(empty), url(empty) + "preview/"):
        response = client.post(path, body, format="json")
        assert response.status_code == 400, response.content
        assert "questions" in response.json()["errors"]
    assert not LedgerEntry.objects.filter(survey=empty).exists()
