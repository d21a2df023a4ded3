"""POST /api/v1/designs/power/regression/ (surveys.analysis.regression_power;
docs/analysis.md#regression-power): the figures of dpcore.local.regression_power through the API,
and every 400 naming its field."""

from __future__ import annotations

import pytest

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
    r = api.post(URL, {**BODY, "n": 1000}, format="json")
    assert r.json()["power"] == pytest.approx(rp.power(**CASE, n=1000), rel=1e-12)


def test_number_predictor(api):
    effect = {"odds_ratio": 1.5, "predictor": "continuous"}
    r = api.post(URL, {**BODY, "effect": effect, "power": 0.8}, format="json")
    assert r.status_code == 200, r.content
    want = rp.sample_size(**{**CASE, "odds_ratio": 1.5, "share": None}, target=0.8)
    assert r.json()["n"] == want


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
