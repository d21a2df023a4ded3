"""POST /api/v1/designs/power/regression/ (surveys.analysis.regression_power;
docs/analysis.md#regression-power): the figures of dpcore.local.regression_power through the API,
and every 400 naming its field."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from dpcore.local import regression_power as rp

pytestmark = pytest.mark.django_db
URL = "/api/v1/designs/power/regression/"
COIN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
BODY = {"design": COIN, "pi0": 0.2, "effect": {"odds_ratio": 2.0, "predictor_share": 0.4}}
CASE = {"c": 0.5, "d": 0.25, "pi0": 0.2, "odds_ratio": 2.0, "share": 0.4, "alpha": 0.05}


def test_sample_size_and_power(api):
    r = api.post(URL, {**BODY, "power": 0.8}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["n"] == rp.sample_size(**CASE, target=0.8)
    assert (body["c"], body["d"], body["alpha"]) == (0.5, 0.25, 0.05)
    assert body["method"] == "wald_expected_information" and body["effect"] == BODY["effect"]
    # The builder's comparison: the same question asked directly (c = 1, d = 0); formulas.md
    # quotes 1,772 against 354 for this case.
    assert (body["n"], body["n_direct"]) == (1772, 354)
    assert body["n_direct"] == rp.sample_size(**{**CASE, "c": 1.0, "d": 0.0}, target=0.8)
    r = api.post(URL, {**BODY, "n": 1000}, format="json")
    assert r.json()["power"] == pytest.approx(rp.power(**CASE, n=1000), rel=1e-12)
    direct = rp.power(**{**CASE, "c": 1.0, "d": 0.0}, n=1000)
    assert r.json()["power_direct"] == pytest.approx(direct, rel=1e-12)
    assert "n_direct" not in r.json()


def test_number_predictor(api):
    effect = {"odds_ratio": 1.5, "predictor": "continuous"}
    r = api.post(URL, {**BODY, "effect": effect, "power": 0.8}, format="json")
    assert r.status_code == 200, r.content
    want = rp.sample_size(**{**CASE, "odds_ratio": 1.5, "share": None}, target=0.8)
    assert r.json()["n"] == want


def test_a_design_with_negative_c_plans_as_its_mirror(api):
    """Crosswise at p = 0.25 has c = 2p − 1 = −0.5 (it was a 500: dpcore takes c > 0); its
    information equals that of the complement report, c = 0.5, d = 1 − 0.75 = 0.25 — the coin."""
    text = "My mother was born in January, February or March."
    crosswise = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": text}
    r = api.post(URL, {**BODY, "design": crosswise, "power": 0.8}, format="json")
    assert r.status_code == 200, r.content
    assert (r.json()["c"], r.json()["d"]) == (-0.5, 0.75)  # the design's own, as reported
    assert r.json()["n"] == rp.sample_size(**CASE, target=0.8) == 1772


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"power": 0.8, "n": 10}, "power"),
        ({}, "power"),
        (
            {"power": 0.8, "effect": {"odds_ratio": 1.0, "predictor_share": 0.4}},
            "effect.odds_ratio",
        ),
        ({"power": 0.8, "effect": {"odds_ratio": -2, "predictor_share": 0.4}}, "effect"),
        ({"power": 0.8, "effect": {"odds_ratio": 2, "predictor_share": 1.0}}, "effect"),
        ({"power": 0.8, "pi0": 0.0}, "pi0"),
        ({"power": 0.8, "effect": {"odds_ratio": 2}}, "effect.predictor_share"),
        (
            {
                "power": 0.8,
                "effect": {"odds_ratio": 2, "predictor": "continuous", "predictor_share": 0.3},
            },
            "effect.predictor_share",
        ),
        ({"power": 0.8, "effect": {"odds_ratio": 2, "predictor": "ordinal"}}, "effect.predictor"),
        ({"power": 0.8, "design": {"name": "warner", "p": 2}}, "design"),
        ({"power": 0.8, "alpha": 0}, "alpha"),
        # Found by schemathesis in CI (a 500, OverflowError): an odds ratio whose log times the
        # quadrature nodes leaves exp's range — every μ at 0 or 1 carries no information.
        (
            {
                "n": 100,
                "pi0": 1e-300,
                "effect": {"odds_ratio": 5e-324, "predictor": "continuous"},
            },
            "effect",
        ),
        # An odds ratio at 1 within rounding: no practical sample size.
        ({"power": 0.8, "effect": {"odds_ratio": 1 + 1e-15, "predictor_share": 0.4}}, "effect"),
    ],
)
def test_bad_input_is_400_naming_the_field(api, change, field):
    r = api.post(URL, {**BODY, **change}, format="json")
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert any(name == field or name.startswith(field + ".") for name in errors), errors


def test_the_builder_has_the_settings_and_the_url(client, alice):
    """Issue 26.5 in the dashboard: the builder's regression settings, a line under each yes/no
    question, and the API's URL and the outcome kind from the server (static/js/power/regression.js
    writes neither)."""
    from surveys.analysis.regression_power import OUTCOME_KIND

    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    for field in ("regression-or", "regression-predictor", "regression-share", "regression-pi0"):
        assert f'id="{field}"' in html
    assert 'data-role="regression-power"' in html
    island = re.search(
        r'<script id="builder-data" type="application/json">(.*?)</script>', html, re.S
    )
    data = json.loads(island.group(1))
    assert data["regression_power_url"] == reverse("api-design-power-regression") == URL
    assert data["regression_outcome_kind"] == OUTCOME_KIND == "yes_no"
    # The designs the page may ask about: one report model each; two-group designs are left out
    # (asking would be a 400, a console error on the builder page).
    names = data["regression_design_names"]
    assert {"forced_response", "warner", "crosswise"} <= set(names)
    assert "cheater_detection" not in names and "unrelated_question_unknown" not in names
    starting = data["starting_designs"]
    for name in names:  # each answers for the design the builder starts it with
        body = {**BODY, "design": starting[name], "power": 0.8}
        r = client.post(URL, body, content_type="application/json")
        assert r.status_code == 200, (name, r.json())
