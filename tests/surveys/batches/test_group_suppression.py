"""Issue 21, item 15: a group with fewer than k published respondents is suppressed (§8.5).

The attack: batches of k hide one arrival in the overall figures, but not in a group. A batch of
k in which one member is alone in their group (here the only "young" respondent) moved that
group's grouped estimate by exactly that member's report: ``reported_yes`` of the group was
their coin report. Now such a group is listed with ``"suppressed": true`` and no figures, in the
JSON, the CSV (empty cells, ``suppressed`` = 1), the comparisons and the dashboard's breakdown.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client, override_settings

from surveys.models import Survey
from testsupport import factories
from testsupport.factories import full_answers

K = 3
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _publish_with_one_young_member(survey: Survey, report: bool) -> None:
    for _ in range(K):  # a first batch, all "old"
        factories.submit(survey, full_answers(age="old", coin=True))
    for _ in range(K - 1):  # the second batch: k − 1 "old" ...
        factories.submit(survey, full_answers(age="old", coin=True))
    factories.submit(survey, full_answers(age="young", coin=report))  # ... and one "young"


def _group(body: dict, name: str) -> dict:
    return next(g for g in body["groups"] if g["group"] == name)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
@pytest.mark.parametrize("report", [True, False])
def test_a_lone_batch_member_in_a_group_is_not_shown(api, survey, report) -> None:
    url = f"/api/v1/surveys/{survey.slug}/estimates/?group_by=age"
    before = _group(api.get(url).json(), "young")
    _publish_with_one_young_member(survey, report)
    body = api.get(url).json()
    assert body["respondents"] == 2 * K  # the batch is published...
    young = _group(body, "young")
    # ...but the group of one shows nothing of its member's report.
    assert young == {"group": "young", "suppressed": True, "respondents": None, "questions": []}
    assert young == before
    old = _group(body, "old")
    assert old["suppressed"] is False and old["respondents"] == 2 * K - 1
    coin = next(q for q in old["questions"] if q["key"] == "coin")
    assert coin["reported_yes"] == 2 * K - 1


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_suppressed_groups_in_the_csv_comparisons_and_dashboard(api, alice, survey) -> None:
    _publish_with_one_young_member(survey, True)
    base = f"/api/v1/surveys/{survey.slug}/estimates/"
    text = api.get(f"{base}?group_by=age&format=csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    young = [r for r in rows if r["group"] == "'young"]
    figures = ("group_respondents", "n", "reported_yes", "reported", "count", "share",
               "mean", "estimate", "std_error", "ci_low", "ci_high")  # fmt: skip
    assert young and all(r["suppressed"] == "1" for r in young)
    assert all(r[c] == "" for r in young for c in figures)
    assert all(r["suppressed"] == "0" for r in rows if r["group"] != "'young")
    # Comparisons leave the suppressed group out.
    body = api.get(f"{base}?group_by=age&compare=true").json()
    for q in body["questions"]:
        for d in q.get("comparison", {}).get("differences", []):
            assert d["group"] != "young"
        assert q.get("comparison", {}).get("reference") != "young"
    # The dashboard's breakdown says the group is suppressed and shows none of its figures.
    page = Client()
    page.force_login(alice)
    html = page.get(f"/surveys/{survey.slug}/results/?group_by=age").content.decode()
    assert 'data-suppressed="young"' in html
    assert f"fewer than {K} respondents" in html
