"""Group comparisons: dpcore.local.compare against scipy, a seeded simulation of the test's
level, and GET …/estimates/?group_by=…&compare=true."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

from dpcore.local.compare import chi2_sf, differences, holm, homogeneity_test
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("df", [1, 2, 3, 7, 30])
def test_chi2_sf_matches_scipy(df: int) -> None:
    for x in (0.01, 0.5, 1.0, 3.84, 10.0, 50.0, 200.0):
        assert chi2_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-9, abs=1e-300)
    assert chi2_sf(0.0, df) == 1.0


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.02, 0.04 → 3·0.01, max(0.03, 2·0.02), max(0.04, 1·0.04)
    assert holm([0.04, 0.01, None, 0.02]) == pytest.approx([0.04, 0.03, None, 0.04])
    assert holm([0.9, 0.8]) == [1.0, 1.0]


def test_homogeneity_matches_scipy_and_skips_empty() -> None:
    table = [[30, 70], [45, 55], [0, 0], [20, 60]]
    ours = homogeneity_test(table)
    stat, p, df, _ = chi2_contingency([r for r in table if sum(r)], correction=False)
    assert (ours.statistic, ours.df) == (pytest.approx(stat), df)
    assert ours.p_value == pytest.approx(p, rel=1e-9)
    assert homogeneity_test([[3, 4], [0, 0]]).statistic is None


def test_differences_formula_and_reference() -> None:
    ref, diffs = differences([("empty", 0, 0), ("a", 40, 100), ("b", 60, 100), ("c", 0, 0)],
                             c=0.5, d=0.25, confidence=0.95)  # fmt: skip
    assert ref == "a"
    b, c = diffs[1], diffs[2]
    assert diffs[0].group == "empty" and diffs[0].difference is None
    assert b.difference == pytest.approx((0.6 - 0.4) / 0.5)
    se = math.sqrt(0.24 / 100 + 0.24 / 100) / 0.5
    assert b.std_error == pytest.approx(se)
    assert b.p_value == pytest.approx(math.erfc(abs(b.difference / se) / math.sqrt(2)))
    assert b.p_value_holm == pytest.approx(b.p_value)  # the only p-value in the family
    assert c.difference is None and c.p_value is None


def test_level_of_the_difference_test_by_simulation() -> None:
    # Under H₀ (equal prevalence) the 5 % test rejects ≈ 5 % of the time (seeded).
    rng = np.random.default_rng(77)
    lam = 0.5 * 0.2 + 0.25
    rejections = 0
    reps = 4000
    for _ in range(reps):
        y = rng.binomial(300, lam, 2)
        _, (diff,) = differences([("a", y[0], 300), ("b", y[1], 300)], c=0.5, d=0.25,
                                 confidence=0.95)  # fmt: skip
        rejections += diff.p_value < 0.05
    assert rejections / reps == pytest.approx(0.05, abs=0.012)


def test_estimates_compare_api(api, survey) -> None:
    rng = np.random.default_rng(3)
    for i in range(120):
        age = "old" if i % 3 == 0 else "young"
        coin = bool(rng.random() < (0.7 if age == "old" else 0.35))
        submit(survey, full_answers(age=age, coin=coin, party=str(rng.choice(list("abcd")))))
    base = f"/api/v1/surveys/{survey.slug}/estimates/?group_by=age"
    body = api.get(base + "&compare=true").json()
    coin = next(q for q in body["questions"] if q["key"] == "coin")
    comp = coin["comparison"]
    assert set(comp) == {"reference", "test", "statistic", "df", "p_value", "differences"}
    assert comp["reference"] == "young" and comp["df"] == 1
    (old,) = comp["differences"]
    est = {
        g["group"]: next(q for q in g["questions"] if q["key"] == "coin") for g in body["groups"]
    }
    assert old["group"] == "old"
    assert old["difference"] == pytest.approx(
        est["old"]["estimate_unclipped"] - est["young"]["estimate_unclipped"]
    )
    assert old["std_error"] == pytest.approx(math.hypot(est["old"]["std_error"],
                                                        est["young"]["std_error"]))  # fmt: skip
    table = [[e["reported_yes"], e["n"] - e["reported_yes"]] for e in est.values()]
    assert comp["statistic"] == pytest.approx(chi2_contingency(table, correction=False)[0])
    party = next(q for q in body["questions"] if q["key"] == "party")["comparison"]
    assert party["test"] == "equal_distributions" and party["df"] == 3
    assert {d["option"] for d in party["differences"]} == {"a", "b", "c", "d"}
    assert "comparison" not in next(q for q in body["questions"] if q["key"] == "hours")
    assert "comparison" not in api.get(base).json()["questions"][0]


@pytest.mark.parametrize("query", ["?compare=true", "?group_by=age&compare=maybe"])
def test_compare_bad_input(api, survey, query) -> None:
    r = api.get(f"/api/v1/surveys/{survey.slug}/estimates/{query}")
    assert r.status_code == 400 and "compare" in r.json()["errors"]
