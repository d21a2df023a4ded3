"""Post-stratification (issue 26 item 3; DESIGN §8.7; docs/analysis.md#post-stratification):
the formula against a hand computation through the API, the bad inputs, the CSV, and the
privacy rule (a group ``group_by`` suppresses cannot be weighted)."""

from __future__ import annotations

import csv
import io
import math
from statistics import NormalDist, variance

import pytest
from django.test import override_settings
from django.urls import reverse

from dpcore.local.bounded_interval import bounded_interval
from testsupport import factories
from testsupport.factories import full_answers

K = 2
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]

# Young: coin reports T T T F, hours 10 20 30 40; old: coin F F F F T F, hours 5 5 10 10 15 15.
YOUNG = [(True, 10.0), (True, 20.0), (True, 30.0), (False, 40.0)]
OLD = [(False, 5.0), (False, 5.0), (False, 10.0), (False, 10.0), (True, 15.0), (False, 15.0)]
W_YOUNG, W_OLD = 0.3, 0.7


def _fill(survey) -> None:
    for age, rows in (("young", YOUNG), ("old", OLD)):
        for coin, hours in rows:
            factories.submit(survey, full_answers(age=age, coin=coin, hours=hours))


def _url(survey, **query: str) -> str:
    base = reverse("api-survey-estimates", args=[survey.slug])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def _q(body: dict, key: str) -> dict:
    return next(q for q in body["questions"] if q["key"] == key)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_hand_computed_example(api, survey) -> None:
    _fill(survey)
    body = api.get(_url(survey, poststratify="age", shares="young:0.3,old:0.7")).json()
    assert body["poststratified_by"] == "age"
    assert body["shares"] == {"young": 0.3, "old": 0.7}
    # The coin question: forced response p_truth = ½, p_yes = ¼, so c = ½, d = ¼ and per group
    # π̂_h = (λ̂_h − ¼)/½, SE_h = √(λ̂(1 − λ̂)/n_h)/½ (docs/formulas.md#binary-estimator).
    lam_y, lam_o = 3 / 4, 1 / 6
    pi_y, pi_o = (lam_y - 0.25) / 0.5, (lam_o - 0.25) / 0.5  # 1.0 and −1/6
    se_y = math.sqrt(lam_y * (1 - lam_y) / 4) / 0.5
    se_o = math.sqrt(lam_o * (1 - lam_o) / 6) / 0.5
    want = W_YOUNG * pi_y + W_OLD * pi_o  # 0.3 − 0.11667 = 0.18333
    want_se = math.sqrt(W_YOUNG**2 * se_y**2 + W_OLD**2 * se_o**2)
    coin = _q(body, "coin")
    assert coin["estimate_unclipped"] == pytest.approx(0.18333333333, abs=1e-9)
    assert coin["estimate_unclipped"] == pytest.approx(want, rel=1e-12)
    assert coin["estimate"] == pytest.approx(want, rel=1e-12)
    assert coin["std_error"] == pytest.approx(want_se, rel=1e-12)
    # Raw counts stay what was observed.
    assert (coin["n"], coin["reported_yes"]) == (10, 4)
    # The interval: the bounded interval on [0, 1] at (u, SE) (here u − z·SE < 0, so it is
    # boundary-calibrated, not Wald's).
    assert 0.0 <= coin["ci_low"] < coin["estimate"] < coin["ci_high"] <= 1.0
    assert (coin["ci_low"], coin["ci_high"]) == pytest.approx(
        bounded_interval(want, want_se, 0.0, 1.0, 0.95), rel=1e-12
    )
    z = NormalDist().inv_cdf(0.975)
    # The number question: Σ W_h·mean_h, SE² = Σ W_h²·s_h²/n_h, mean ± z·SE.
    hy, ho = [h for _, h in YOUNG], [h for _, h in OLD]
    mean = W_YOUNG * sum(hy) / 4 + W_OLD * sum(ho) / 6
    se = math.sqrt(W_YOUNG**2 * variance(hy) / 4 + W_OLD**2 * variance(ho) / 6)
    hours = _q(body, "hours")
    assert hours["mean"] == pytest.approx(mean, rel=1e-12)
    assert hours["std_error"] == pytest.approx(se, rel=1e-9)
    assert hours["ci_low"] == pytest.approx(mean - z * se, rel=1e-6)
    assert hours["ci_high"] == pytest.approx(mean + z * se, rel=1e-6)
    # Choice options: each option post-stratified from the groups' own figures.
    grouped = api.get(_url(survey, group_by="age")).json()
    per_group = {g["group"]: _q(g, "party") for g in grouped["groups"]}
    for i, option in enumerate(_q(body, "party")["options"]):
        parts = [per_group[g]["options"][i] for g in ("young", "old")]
        u = W_YOUNG * parts[0]["estimate_unclipped"] + W_OLD * parts[1]["estimate_unclipped"]
        assert option["estimate_unclipped"] == pytest.approx(u, rel=1e-12)
        s2 = W_YOUNG**2 * parts[0]["std_error"] ** 2 + W_OLD**2 * parts[1]["std_error"] ** 2
        assert option["std_error"] == pytest.approx(math.sqrt(s2), rel=1e-12)
    # The post-stratifying question itself is reported raw.
    assert [o["count"] for o in _q(body, "age")["options"]] == [4, 6]
    # Without the parameters the body has neither field.
    plain = api.get(_url(survey)).json()
    assert "poststratified_by" not in plain and "shares" not in plain


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_csv_carries_the_weighting(api, survey) -> None:
    _fill(survey)
    response = api.get(_url(survey, poststratify="age", shares="young:0.3,old:0.7", format="csv"))
    assert response.status_code == 200
    assert "estimates-weighted-by-age.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows and all(r["poststratified_by"] == "'age" for r in rows)
    assert all(r["shares"] == "'young=0.3 old=0.7" for r in rows)
    plain = list(csv.DictReader(io.StringIO(api.get(_url(survey, format="csv")).content.decode())))
    assert all(r["poststratified_by"] == "" and r["shares"] == "" for r in plain)


BAD = [
    ({"poststratify": "nope", "shares": "a:1"}, "poststratify", "Unknown question"),
    ({"poststratify": "coin", "shares": "a:1"}, "poststratify", "not a direct category"),
    ({"poststratify": "age"}, "shares", "required"),
    ({"shares": "young:0.5,old:0.5"}, "poststratify", "required"),
    ({"poststratify": "age", "shares": "young:1"}, "shares", "missing: old"),
    ({"poststratify": "age", "shares": "young:0.5,old:0.4,mid:0.1"}, "shares", "mid"),
    ({"poststratify": "age", "shares": "young:-0.5,old:1.5"}, "shares", "negative"),
    ({"poststratify": "age", "shares": "young:0.5,old:0.4"}, "shares", "sum to 1"),
    ({"poststratify": "age", "shares": "young:0.5,old:0.50001"}, "shares", "sum to 1"),
    ({"poststratify": "age", "shares": "young=0.5,old=0.5"}, "shares", "<option>:<share>"),
    ({"poststratify": "age", "shares": "young:abc,old:0.5"}, "shares", "not a number"),
    ({"poststratify": "age", "shares": "young:nan,old:0.5"}, "shares", "not a number"),
    ({"poststratify": "age", "shares": "young:inf,old:0"}, "shares", "not a number"),
    ({"poststratify": "age", "shares": "young:0.5,young:0.5"}, "shares", "twice"),
    ({"poststratify": "age", "shares": "young:0.5,old:0.5", "group_by": "age"}, "poststratify",
     "group_by"),
]  # fmt: skip


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
@pytest.mark.parametrize(("query", "field", "words"), BAD)
def test_bad_inputs_are_400_naming_the_field(api, survey, query, field, words) -> None:
    _fill(survey)
    response = api.get(_url(survey, **query))
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert list(errors) == [field]
    assert words in " ".join(errors[field])


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_shares_within_the_tolerance_are_normalised(api, survey) -> None:
    _fill(survey)
    body = api.get(_url(survey, poststratify="age", shares="young:1/3,old:0.6666665")).json()
    assert sum(body["shares"].values()) == pytest.approx(1.0, abs=1e-15)
    assert body["shares"]["young"] == pytest.approx((1 / 3) / (1 / 3 + 0.6666665), rel=1e-12)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_group_group_by_suppresses_cannot_be_weighted(api, survey) -> None:
    # Two "old" then one "young" and one "old": the second batch publishes a lone young member.
    for age in ("old", "old", "young", "old"):
        factories.submit(survey, full_answers(age=age))
    grouped = api.get(_url(survey, group_by="age")).json()
    young = next(g for g in grouped["groups"] if g["group"] == "young")
    assert young["suppressed"] is True  # what group_by already does
    response = api.get(_url(survey, poststratify="age", shares="young:0.5,old:0.5"))
    assert response.status_code == 400
    message = " ".join(response.json()["errors"]["shares"])
    assert "'young'" in message and f"fewer than {K}" in message
    # Nothing about its count is told (1 respondent reads the same as 0).
    assert "1 " not in message.replace(f"fewer than {K}", "")
    # Share 0: the group does not enter, so it is accepted (the raw old-only figures).
    body = api.get(_url(survey, poststratify="age", shares="young:0,old:1")).json()
    old = next(g for g in grouped["groups"] if g["group"] == "old")
    assert _q(body, "coin")["estimate_unclipped"] == pytest.approx(
        _q(old, "coin")["estimate_unclipped"], rel=1e-12
    )


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_no_respondents_in_a_group_is_refused_naming_it(api, survey) -> None:
    for _ in range(4):
        factories.submit(survey, full_answers(age="old"))
    response = api.get(_url(survey, poststratify="age", shares="young:0.2,old:0.8"))
    assert response.status_code == 400
    assert "'young'" in " ".join(response.json()["errors"]["shares"])
