"""The multi-select kind in central-DP releases (issue 16): a respondent is in every option's
histogram, so the release counts k contributions for it (L1 = k, L2 = √k) and its noise scale
and charge follow; per-option results are debiased like yes/no."""

from __future__ import annotations

import math
import uuid

import pytest

from tests.surveys.multi.support import BODY, OPTIONS, url

pytestmark = pytest.mark.django_db


def _survey(alice, n: int = 60):
    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(
        owner=alice, data={**BODY, "budget": {"epsilon": 4.0, "delta": 1e-6}}
    )
    services.survey_open(survey=survey)
    for i in range(n):
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={
                "drugs": {"cannabis": i % 2 == 0, "cocaine": i % 5 == 0, "ecstasy": False},
                "age": "young" if i % 3 else "old",
            },
        )
    return survey


def test_preview_counts_k_contributions_for_a_multi_question(api, alice):
    survey = _survey(alice)
    only = api.post(
        url(survey, "releases/preview/"),
        {"mechanism": "laplace", "epsilon": 0.6, "questions": ["drugs"]},
        format="json",
    )
    assert only.status_code == 200, only.content
    body = only.json()
    assert body["contributions"] == 3
    assert body["l1_sensitivity"] == 3 and body["l2_sensitivity"] == pytest.approx(math.sqrt(3))
    assert body["noise_scale"] == pytest.approx(3 / 0.6)
    assert body["epsilon_cost"] == pytest.approx(0.6, rel=1e-4)  # the accountant may be tighter
    both = api.post(
        url(survey, "releases/preview/"), {"mechanism": "laplace", "epsilon": 0.6}, format="json"
    ).json()
    assert both["contributions"] == 4  # three options + the age histogram
    assert both["noise_scale"] == pytest.approx(4 / 0.6)
    gaussian = api.post(
        url(survey, "releases/preview/"),
        {"mechanism": "gaussian", "rho": 0.5, "questions": ["drugs"]},
        format="json",
    ).json()
    assert gaussian["noise_scale"] == pytest.approx(math.sqrt(3 / (2 * 0.5)))


def test_release_results_per_option(api, alice, django_capture_on_commit_callbacks):
    survey = _survey(alice)
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            url(survey, "releases/"),
            {"mechanism": "laplace", "epsilon": 1.5, "group_by": "age"},
            format="json",
        )
    assert r.status_code == 202, r.content
    detail = api.get(r.json()["url"]).json()
    assert detail["status"] == "done", detail
    assert detail["noise_scale"] == pytest.approx(3 / 1.5)  # age is the group_by: drugs alone
    entry = next(q for q in detail["results"]["questions"] if q["key"] == "drugs")
    assert entry["contributions"] == 3
    assert [o["option"] for o in entry["options"]] == OPTIONS
    for o in entry["options"]:
        counts = o["noisy_counts"]
        assert set(counts) == {"yes", "no"} and o["noisy_count"] == counts["yes"]
        total = counts["yes"] + counts["no"]
        if total >= 1:
            lam = counts["yes"] / total
            assert o["estimate_unclipped"] == pytest.approx((lam - 0.25) / 0.5)
    # The overall histograms are the groups' sums (post-processing).
    groups = detail["results"]["groups"]
    for i, option in enumerate(OPTIONS):
        assert entry["options"][i]["noisy_counts"]["yes"] == sum(
            next(q for q in g["questions"] if q["key"] == "drugs")["options"][i]["noisy_counts"][
                "yes"
            ]
            for g in groups
        )
    budget = api.get(url(survey, "budget/")).json()
    assert budget["epsilon_spent"] == pytest.approx(1.5, rel=1e-4)
