"""Selectors (surveys/selectors/): estimates (== dpcore.local on the same counts), grouped,
empty, one query on the tallies, bad confidence."""

from __future__ import annotations

import math

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from deniable.errors import InvalidInput
from dpcore import local as rr
from surveys import selectors
from surveys.api.estimates import estimates_body
from surveys.definitions import question_designs as designs
from surveys.models import Submission, Tally
from tests.surveys.selectors.support import populate

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("confidence", [0, 1, -0.5, 1.5, "abc", "nan", "inf", None])
def test_bad_confidence(survey, confidence):
    with pytest.raises(InvalidInput) as caught:
        estimates_body(survey=survey, confidence=confidence)
    assert "confidence" in caught.value.errors


def test_estimates_equal_privacy_rr(survey):
    populate(survey)
    body = estimates_body(survey=survey, confidence=0.9)
    assert body["survey"] == survey.slug and body["respondents"] == 5 and body["confidence"] == 0.9
    assert body["epsilon_local_total"] == pytest.approx(2 * math.log(3) + 1.0)
    by_key = {q["key"]: q for q in body["questions"]}

    coin = survey.questions.get(key="coin")
    ref = rr.estimate_binary(designs.question_design(coin), n=5, reported_yes=3, confidence=0.9)
    q = by_key["coin"]
    for name in (
        "n",
        "reported_yes",
        "reported_yes_rate",
        "estimate",
        "estimate_unclipped",
        "std_error",
        "ci_low",
        "ci_high",
    ):
        assert q[name] == getattr(ref, name), name
    assert q["epsilon"] == pytest.approx(math.log(3))
    assert q["design"]["c"] == 0.5 and q["design"]["d"] == 0.25

    party = survey.questions.get(key="party")
    ref_k = rr.estimate_krr(designs.question_design(party), counts=[2, 2, 1, 0], confidence=0.9)
    options = by_key["party"]["options"]
    assert [o["option"] for o in options] == ["a", "b", "c", "d"]
    for o, r in zip(options, ref_k.options, strict=True):
        assert o["reported"] == r.reported and o["estimate"] == r.estimate
        assert o["estimate_unclipped"] == r.estimate_unclipped and o["ci_high"] == r.ci_high

    assert by_key["age"]["options"] == [
        {"option": "young", "count": 2, "share": 0.5},
        {"option": "old", "count": 2, "share": 0.5},
    ]
    hours = by_key["hours"]
    assert hours["n"] == 4 and hours["mean"] == 25
    sd = math.sqrt(((10 - 25) ** 2 + 5**2 + 5**2 + 15**2) / 3)
    assert hours["std_error"] == pytest.approx(sd / 2)
    assert hours["ci_low"] == pytest.approx(25 - rr.z_value(0.9) * sd / 2)


def test_estimates_grouped(survey):
    populate(survey)
    body = estimates_body(survey=survey, group_by="age")
    assert body["group_by"] == "age"
    groups = {g["group"]: g for g in body["groups"]}
    assert set(groups) == {"young", "old"}
    assert groups["young"]["respondents"] == 2
    young = {q["key"]: q for q in groups["young"]["questions"]}
    assert "age" not in young
    coin = survey.questions.get(key="coin")
    ref = rr.estimate_binary(designs.question_design(coin), n=2, reported_yes=2)
    assert young["coin"]["estimate"] == ref.estimate and young["coin"]["ci_low"] == ref.ci_low


def test_estimates_empty_survey(survey):
    body = estimates_body(survey=survey)
    assert body["respondents"] == 0
    coin = body["questions"][0]
    assert coin["n"] == 0 and coin["estimate"] is None and coin["std_error"] is None


def test_estimates_use_one_query_on_tallies(survey):
    populate(survey)
    survey = selectors.survey_get_for_user(user=survey.owner, slug=survey.slug, need="view")
    with CaptureQueriesContext(connection) as ctx:
        estimates_body(survey=survey, group_by="age")
    sql = [q["sql"] for q in ctx.captured_queries]
    assert len(sql) == 1, sql
    assert Tally._meta.db_table in sql[0] and Submission._meta.db_table not in sql[0]


def test_number_estimate_without_bounds_is_unclipped():
    """The admin can leave a number question's min/max blank (the columns are nullable): its
    estimate used to fail comparing None with a float (a 500 on the dashboard and the API)."""
    from surveys.models import Question
    from surveys.selectors.counts import NumberSums
    from surveys.selectors.estimates import number_estimate

    q = Question(key="hours", text="Hours", kind=Question.Kind.NUMBER)
    sums = NumberSums(n=3, total=6.0, total_sq=14.0)  # answers 1, 2, 3
    e = number_estimate(q, sums, 0.95)
    assert (e.min, e.max) == (None, None)
    assert e.mean == pytest.approx(2.0)
    assert e.std_error == pytest.approx(1 / math.sqrt(3))
    half = rr.z_value(0.95) / math.sqrt(3)
    assert (e.ci_low, e.ci_high) == (pytest.approx(2.0 - half), pytest.approx(2.0 + half))
    q.min_value, q.max_value = 1.5, 2.5  # declared bounds still clip the interval
    e = number_estimate(q, sums, 0.95)
    assert (e.ci_low, e.ci_high) == (1.5, 2.5)
