"""Respondent pages (issue 10): deniability numbers per design (docs/formulas.md#deniability),
the randomizer visual, every number from the server."""

from __future__ import annotations

import math
import re

import pytest
from django.urls import reverse

from surveys.models import Survey
from tests.surveys.respondent.support import COIN, FR, KRR, UQ, WARNER, make, page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _binary_expected(c: float, d: float) -> dict[str, float]:
    """LR(yes) = P(yes|trait)/P(yes|no trait) = (c+d)/d; LR(no) = (1−d)/(1−c−d)."""
    return {"yes": (c + d) / d, "no": (1 - d) / (1 - c - d)}


@pytest.mark.parametrize(
    ("question", "c", "d"),
    [
        (COIN, 0.5, 0.25),
        (FR, 0.6, 0.3),  # c = p_truth, d = p_yes
        (WARNER, 2 * 0.8 - 1, 1 - 0.8),  # c = 2p − 1, d = 1 − p
        (UQ, 0.6, (1 - 0.6) * 0.3),  # c = p, d = (1 − p)·u
    ],
    ids=["coin", "forced_response", "warner", "unrelated_question"],
)
def test_yes_no_deniability_numbers_follow_the_design(client, alice, question, c, d):
    _, data = page(client, make(alice, [question]))
    [q] = data["questions"]
    reports = q["protection"]["reports"]
    expected = _binary_expected(c, d)
    epsilon = max(math.log(v) for v in expected.values())
    assert q["epsilon"] == pytest.approx(epsilon)  # the larger ratio is e^ε
    for report, ratio in expected.items():
        entry = reports[report]
        assert entry["likelihood_ratio"] == pytest.approx(ratio, rel=1e-12)
        assert entry["reference_prior"] == 0.5
        assert entry["posterior"] == pytest.approx(ratio / (ratio + 1), rel=1e-12)
        text = entry["text"]
        ratio_words = f"{round(ratio, 9):.1f}".removesuffix(".0")
        assert f"A {report.upper()} report is {ratio_words} times as likely" in text
        # Half-up percentages: every ratio here gives a posterior with at most one decimal.
        percent = math.floor(100 * ratio / (ratio + 1) + 0.5 + 1e-9)
        assert f"would now think it is {percent}% likely" in text
        assert " only " not in text  # a neutral statement, no "only 25%"


def test_yes_no_ratios_differ_by_report_when_the_design_is_asymmetric(client, alice):
    _, data = page(client, make(alice, [FR]))
    reports = data["questions"][0]["protection"]["reports"]
    # Forced response (0.6, 0.3, 0.1): a yes is (0.9/0.3) = 3×, a no (0.7/0.1) = 7× as likely.
    assert reports["yes"]["likelihood_ratio"] == pytest.approx(3.0)
    assert reports["no"]["likelihood_ratio"] == pytest.approx(7.0)
    assert "A NO report is 7 times as likely" in reports["no"]["text"]
    assert "would now think it is 88% likely that your true answer is no" in reports["no"]["text"]


def test_krr_deniability_numbers_per_option(client, alice):
    _, data = page(client, make(alice, [KRR]))
    [q] = data["questions"]
    reports = q["protection"]["reports"]
    e, k = math.exp(0.7), 3
    p, other = e / (e + k - 1), 1 / (e + k - 1)  # docs/formulas.md#krr: keep p, each other option q
    assert set(reports) == set(KRR["options"])
    for option in KRR["options"]:
        entry = reports[option]
        assert entry["likelihood_ratio"] == pytest.approx(p / other, rel=1e-12)
        assert entry["likelihood_ratio"] == pytest.approx(e, rel=1e-12)
        assert entry["reference_prior"] == pytest.approx(1 / k)
        # From a uniform prior 1/k the belief is exactly the keep probability p.
        assert entry["posterior"] == pytest.approx(p, rel=1e-12)
        assert f"A “{option}” report is 2 times as likely" in entry["text"]
        assert f"all {k} options equally likely" in entry["text"]
        assert f"{100 * p:.0f}% likely that your true answer is “{option}”" in entry["text"]


def test_randomizer_visual_matches_each_design(client, alice):
    _, data = page(client, make(alice, [COIN, FR, WARNER, UQ, KRR]))
    by_key = {q["key"]: q["protection"]["randomizer"] for q in data["questions"]}
    assert by_key["coin"]["kind"] == "coins" and by_key["coin"]["button"] == "Flip the coins"
    for key in ("fr", "warner", "uq", "vote"):
        assert by_key[key]["kind"] == "spinner" and by_key[key]["button"] == "Spin the spinner"
        shares = [s["share"] for s in by_key[key]["sectors"]]
        assert sum(shares) == pytest.approx(1.0)
    assert [s["share"] for s in by_key["fr"]["sectors"]] == pytest.approx([0.6, 0.3, 0.1])
    assert [s["share"] for s in by_key["warner"]["sectors"]] == pytest.approx([0.8, 0.2])
    assert [s["share"] for s in by_key["uq"]["sectors"]] == pytest.approx([0.6, 0.12, 0.28])
    e = math.exp(0.7)
    assert by_key["vote"]["sectors"][0]["share"] == pytest.approx(e / (e + 2))
    html = client.get(reverse("respond", args=[Survey.objects.get().slug])).content.decode()
    buttons = re.findall(r'data-role="flip" disabled>([^<]*)<', html)
    assert buttons == ["Flip the coins"] + ["Spin the spinner"] * 4


def test_the_page_gets_every_number_it_shows_from_the_server(client, alice):
    """Issue 12: the browser computes no probability. Each spinner slice carries its printed
    percentage, and each randomized question its integer thresholds (what rr/randomizer.js
    compares a 53-bit draw with) — the legend and the draw never derive one in JavaScript."""
    _, data = page(client, make(alice, [COIN, FR, WARNER, UQ, KRR]))
    by_key = {q["key"]: q for q in data["questions"]}
    assert [s["percent"] for s in by_key["fr"]["protection"]["randomizer"]["sectors"]] == [
        "60%",
        "30%",
        "10%",
    ]
    assert [s["percent"] for s in by_key["uq"]["protection"]["randomizer"]["sectors"]] == [
        "60%",
        "12%",
        "28%",
    ]
    for q in data["questions"]:
        assert all(isinstance(t, int) and 0 < t < 2**53 for t in q["thresholds"].values())
        for sector in q["protection"]["randomizer"]["sectors"]:
            assert sector["percent"].endswith("%")
    keep = by_key["vote"]["thresholds"]["keep"] / 2**53  # within a grid step of e^ε/(e^ε + 2)
    assert keep == pytest.approx(math.exp(0.7) / (math.exp(0.7) + 2), abs=2**-51)
