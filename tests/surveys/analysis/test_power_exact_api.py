"""``POST /api/v1/designs/power/`` with ``"method": "exact"`` (issue 26 item 4): the binomial
power of the same test beside the normal approximation, and the exact sample size."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dpcore.local import optimal_forced_response, power_exact
from dpcore.local import power as approximate

pytestmark = pytest.mark.django_db

# ε = 3, optimal forced response: the design whose approximate n = 360 has exact power 0.783.
EPS3 = optimal_forced_response(3.0)
DESIGN = {
    "name": "forced_response",
    "p_truth": EPS3.c,
    "p_yes": EPS3.d,
    "p_no": 1.0 - EPS3.c - EPS3.d,
}
BODY = {"design": DESIGN, "kind": "yes_no", "test": "one_sample", "pi0": 0.05, "pi1": 0.10}


def _post(api, **change):
    return api.post(reverse("api-design-power"), {**BODY, **change}, format="json")


def _figures(design_c: float, design_d: float, test: str = "one_sample") -> dict:
    return {"test": test, "c": design_c, "d": design_d, "pi0": 0.05, "pi1": 0.10, "alpha": 0.05}


def test_exact_power_beside_the_approximation(api) -> None:
    r = _post(api, n=360, method="exact")
    assert r.status_code == 200, r.content
    out = r.json()
    c, d = DESIGN["p_truth"], DESIGN["p_yes"]
    assert out["method"] == "exact"
    assert out["power"] == pytest.approx(power_exact.power(**_figures(c, d), n=360), abs=1e-12)
    assert out["power"] == pytest.approx(0.7827, abs=1e-4)
    assert out["power_normal"] == pytest.approx(0.8001, abs=1e-4)


def test_exact_sample_size_and_its_search_bound(api) -> None:
    out = _post(api, power=0.8, method="exact").json()
    assert out["n_normal"] == 360 and out["n"] == 379 and out["search_bound"] >= 396
    two = _post(api, power=0.8, method="exact", test="two_sample", pi1=0.15).json()
    c, d = DESIGN["p_truth"], DESIGN["p_yes"]
    figures = {**_figures(c, d, "two_sample"), "pi1": 0.15}
    assert (two["n"], two["search_bound"]) == power_exact.sample_size(**figures, target=0.8)
    assert two["n_normal"] == approximate.sample_size(**figures, target=0.8)


def test_normal_is_the_default_and_unchanged(api) -> None:
    out = _post(api, n=360).json()
    assert out["method"] == "normal" and "power_normal" not in out
    assert out["power"] == pytest.approx(0.8001, abs=1e-4)


@pytest.mark.parametrize("method", ["binomial", "", None, 1, ["exact"]])
def test_another_method_is_400_naming_method(api, method) -> None:
    r = _post(api, n=100, method=method)
    assert r.status_code == 400, r.content
    assert "method" in r.json()["errors"]


def test_past_the_search_limit_is_400_naming_method(api) -> None:
    r = _post(api, power=0.8, method="exact", pi1=0.051)
    assert r.status_code == 400, r.content
    assert "normal method" in r.json()["errors"]["method"][0]
