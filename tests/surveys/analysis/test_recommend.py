"""The design recommender (POST /api/v1/designs/recommend/, issue 26.1): k-RR against OUE at one
option's variance, the ±11.9/±16.4 pp example, the crossover k = 3e^ε + 2, and bad input named."""

from __future__ import annotations

import math

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db
BODY = {"kind": "choice", "options": 20, "epsilon": 1.0, "n": 1000, "confidence": 0.95}


def _url() -> str:
    return reverse("api-design-recommend")


def test_the_example_rare_options_get_11_9_pp_with_oue_and_16_4_with_k_rr(api) -> None:
    r = api.post(_url(), BODY, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["recommended"] == {"name": "oue", "epsilon": 1.0}
    by_name = {c["design"]["name"]: c for c in body["candidates"]}
    assert set(by_name) == {"k_rr", "oue"}
    e, n, z = math.e, 1000, 1.959963984540054
    # Independently: per respondent 4e^ε/(e^ε − 1)² (OUE), (e^ε + k − 2)/(e^ε − 1)² (k-RR).
    oue_rare = 4 * e / (e - 1) ** 2 / n
    krr_rare = (e + 20 - 2) / (e - 1) ** 2 / n
    assert by_name["oue"]["rare"]["variance"] == pytest.approx(oue_rare, rel=1e-12)
    assert by_name["k_rr"]["rare"]["variance"] == pytest.approx(krr_rare, rel=1e-12)
    assert round(100 * by_name["oue"]["rare"]["half_width"], 1) == 11.9
    assert round(100 * by_name["k_rr"]["rare"]["half_width"], 1) == 16.4
    assert by_name["oue"]["rare"]["half_width"] == pytest.approx(z * math.sqrt(oue_rare))
    # At uniform frequencies f = 1/k the term f(1 − p − q)/(n(p − q)) is added: for OUE
    # (p − q = 1 − p − q at p = ½) exactly f/n.
    assert by_name["oue"]["variance"] == pytest.approx(oue_rare + 0.05 / n, rel=1e-12)
    assert by_name["oue"]["variance"] < by_name["k_rr"]["variance"]
    assert body["frequency"] == pytest.approx(0.05)


@pytest.mark.parametrize(("k", "name"), [(2, "k_rr"), (5, "k_rr"), (12, "oue"), (100, "oue")])
def test_k_rr_for_few_options_oue_for_many(api, k, name) -> None:
    # ε = 1: the rare-option crossover is k = 3e + 2 ≈ 10.2.
    r = api.post(_url(), {**BODY, "options": k}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["recommended"]["name"] == name
    rare = {c["design"]["name"]: c["rare"]["variance"] for c in r.json()["candidates"]}
    assert (rare["k_rr"] < rare["oue"]) == (k < 3 * math.e + 2)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"options": 1}, "options"),
        ({"options": 2.5}, "options"),
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -1}, "epsilon"),
        ({"epsilon": 10.5}, "epsilon"),
        # Found by schemathesis (a 500): so small that no design's two probabilities differ.
        ({"epsilon": 5e-324, "options": 2, "n": 1}, "epsilon"),
        ({"epsilon": "x"}, "epsilon"),
        ({"n": 0}, "n"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0}, "confidence"),
        ({"kind": "yes_no"}, "kind"),
        ({"kind": "multi"}, "kind"),
    ],
)
def test_bad_input_is_400_naming_the_field(api, change, field) -> None:
    r = api.post(_url(), {**BODY, **change}, format="json")
    assert r.status_code == 400, r.content
    assert field in r.json()["errors"], r.json()


def test_missing_fields_and_a_non_object_body_are_400(api) -> None:
    r = api.post(_url(), {"kind": "choice"}, format="json")
    assert r.status_code == 400 and {"options", "epsilon", "n"} <= set(r.json()["errors"])
    assert api.post(_url(), [1, 2], format="json").status_code == 400


def test_anonymous_callers_are_refused(client) -> None:
    assert client.post(_url(), BODY, content_type="application/json").status_code in (401, 403)
