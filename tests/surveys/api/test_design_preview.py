"""API v1 (docs/api.md): the design preview."""

from __future__ import annotations

import math

import pytest

from tests.surveys.api.support import API

pytestmark = pytest.mark.django_db


def test_design_preview(api):
    r = api.post(f"{API}/designs/preview/", {"kind": "yes_no", "planned_n": 400}, format="json")
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["epsilon"] == pytest.approx(math.log(3)) and body["private"] is True
    assert body["deniability"] == pytest.approx(0.25)
    expected_half_width = 1.959963984540054 * math.sqrt(0.25 / 400) / 0.5
    assert body["planned_half_width"] == pytest.approx(expected_half_width)
    assert body["sample_size_for_5pp"] == 4 * body["sample_size_direct_for_5pp"] - 3 or (
        body["sample_size_for_5pp"] > 3 * body["sample_size_direct_for_5pp"]
    )
    one_sided = api.post(
        f"{API}/designs/preview/",
        {
            "kind": "yes_no",
            "design": {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.5, "p_no": 0},
        },
        format="json",
    ).json()
    assert one_sided["private"] is False and one_sided["epsilon"] is None
    choice = api.post(
        f"{API}/designs/preview/",
        {"kind": "choice", "options": ["a", "b", "c"], "design": {"name": "k_rr", "epsilon": 2}},
        format="json",
    ).json()
    assert choice["epsilon"] == 2 and choice["prior"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "yes_no", "design": {"name": "warner", "p": 2}}, "design.p"),
        ({"kind": "yes_no", "design": {"name": "nope"}}, "design.name"),
        ({"kind": "category"}, "kind"),
        ({"kind": "choice"}, "options"),
        ({"kind": "yes_no", "prior": 2}, "prior"),
        ({"kind": "yes_no", "confidence": 1}, "confidence"),
        ({"kind": "essay"}, "kind"),
    ],
)
def test_design_preview_400(api, body, field):
    r = api.post(f"{API}/designs/preview/", body, format="json")
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()
