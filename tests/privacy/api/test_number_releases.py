"""Releases API (docs/api.md#releases): number questions: sane fields, accuracy at a large ε,
every group, no dependence on the float margin, the preview."""

from __future__ import annotations

import math

import pytest
from django.test import override_settings

from privacy.models import LedgerEntry, Release
from privacy.services import release_run
from tests.privacy.api.support import url
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


def test_number_question_release_completes_with_sane_fields(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(survey),
            {"mechanism": "laplace", "epsilon": 0.5, "questions": ["cheated", "age"]},
            format="json",
        )
    assert response.status_code == 202
    detail = client.get(response.json()["url"]).json()
    assert detail["status"] == "done"
    assert detail["l1_sensitivity"] == 3.0  # cheated + age's sum and count
    assert detail["noise_scale"] == pytest.approx(3 / 0.5)
    age = detail["results"]["questions"][1]
    assert age["key"] == "age" and age["kind"] == "number"
    assert (age["min"], age["max"]) == (18.0, 99.0)
    assert age["grid_step"] == 0.05
    assert age["sum_sensitivity"] == 1981  # ⌈99/0.05⌉ + 1
    assert isinstance(age["noisy_sum_units"], int)
    assert isinstance(age["noisy_count"], int)
    assert age["noisy_sum"] == pytest.approx(0.05 * age["noisy_sum_units"])
    assert age["count_std_error"] > 0 and age["sum_std_error"] > age["count_std_error"]
    if age["noisy_count"] > 0:
        assert 18.0 <= age["mean"] <= 99.0
        assert age["mean"] == age["estimate"]
        assert 18.0 <= age["ci_low"] <= age["mean"] <= age["ci_high"] <= 99.0
        assert age["std_error"] > 0 and age["note"] is None
    else:
        assert age["mean"] is None and age["note"]


# Above the default budget cap on purpose: the accuracy at a large ε is what is tested.
@override_settings(DENIABLE_MAX_BUDGET_EPSILON=5000)
def test_number_release_is_accurate_at_a_large_epsilon(
    client, owner, django_capture_on_commit_callbacks
):
    """ε = 200 on age alone (m = 2): t = 1/100, the sum's scale is K·t = 19.81 grid units
    (≈ 1 year) and the count's noise is 0 except with probability ≈ 2e^-100. |noise on the
    sum| ≥ 400 grid units (20 years) has probability e^(−400/19.81) ≈ 2e-9."""
    rich = make_survey(owner, epsilon=5000.0, respondents=30)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(rich),
            {"mechanism": "laplace", "epsilon": 200, "questions": ["age"]},
            format="json",
        )
    assert response.status_code == 202
    age = client.get(response.json()["url"]).json()["results"]["questions"][0]
    true_sum = sum(20 + i % 50 for i in range(30))  # 1035
    assert age["noisy_count"] == 30
    assert abs(age["noisy_sum"] - true_sum) < 20
    assert age["mean"] == pytest.approx(true_sum / 30, abs=0.7)
    # The conservative sampling term dominates the SE: ((99 − 18)/2)²/30.
    assert age["std_error"] == pytest.approx(40.5 / math.sqrt(30), rel=1e-2)


def test_grouped_number_release_gives_every_group(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(survey),
            {"mechanism": "laplace", "epsilon": 0.5, "questions": ["age"], "group_by": "region"},
            format="json",
        )
    results = Release.objects.get(pk=response.json()["id"]).results
    assert [g["group"] for g in results["groups"]] == ["north", "south"]
    parts = [g["questions"][0] for g in results["groups"]]
    overall = results["questions"][0]
    assert overall["noisy_sum_units"] == sum(p["noisy_sum_units"] for p in parts)
    assert overall["noisy_count"] == sum(p["noisy_count"] for p in parts)
    assert overall["noise_variance"] == pytest.approx(2 * parts[0]["noise_variance"])


def test_number_release_does_not_depend_on_the_float_margin(client, survey, monkeypatch):
    """Issue 11, item 9 — this test used to assert the opposite (fail and refund past the float
    margin: a data-dependent refusal). The release sums exactly now, so the float-safe n of the
    grid plays no part: shrunk to 10 (30 answers here), the release still runs."""
    from dpcore.central import sensitivity as release_math

    monkeypatch.setattr(release_math, "max_safe_respondents", lambda lo, hi, step=None: 10)
    response = client.post(
        url(survey), {"mechanism": "laplace", "epsilon": 0.5, "questions": ["age"]}, format="json"
    )
    release_run(release_id=response.json()["id"])
    release = Release.objects.get(pk=response.json()["id"])
    assert release.status == "done" and release.results is not None
    assert not LedgerEntry.objects.get(release=release).refunded


def test_preview_of_a_number_question(client, survey):
    response = client.post(
        url(survey, "preview/"),
        {"mechanism": "gaussian", "rho": 0.1, "questions": ["age"]},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["contributions"] == 2
    assert body["noise_scale"] == pytest.approx(math.sqrt(2 / 0.2))
    age = body["questions"][0]
    assert age["sum_sensitivity"] == 1981
    assert age["expected_sum_std_error"] == pytest.approx(0.05 * 1981 * math.sqrt(10), rel=1e-9)
    assert age["expected_half_width"] > age["expected_std_error"] > 40.5 / math.sqrt(30)
