"""End to end through the API: 5,000 simulated respondents with a known prevalence π.

Each respondent's true answer and coin flips are simulated with a seeded numpy Generator (this is
the respondent's device, not server noise); only the reported answer is POSTed, through the real
respondent endpoint. The API's estimate, standard error and interval must equal ``dpcore.local``'s
on the same counts, and — with this fixed seed, deterministically — the interval covers π.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from dpcore import local as rr
from surveys import services
from surveys.collection import simulation
from testsupport import factories

# transaction=True: each submission commits on its own, as in production. Inside one long test
# transaction PostgreSQL would keep every superseded tally row version alive, and each upsert would
# walk an ever longer chain of them (quadratic time).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

N = 5_000
TRUE_PI = 0.3
SEED = 31415
COIN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}


# Batches of 10, the production default k: every submission still goes the real way, and its
# batch is published ten at a time (the test settings' k = 1 sealed a batch per respondent,
# most of this test's time). The respondent count below is a multiple of 10: all published.
@override_settings(DENIABLE_ESTIMATE_BATCH=10)
def test_estimate_through_the_api_matches_privacy_rr_and_covers_pi(django_user_model):
    owner = django_user_model.objects.create_user(username="stats", password="pw-stats-123")
    survey = factories.survey_create(
        owner=owner,
        data={
            "title": "Statistics",
            "questions": [{"key": "trait", "text": "Do you have the trait?", "kind": "yes_no"}],
        },
    )
    services.survey_open(survey=survey)
    # Commits are acknowledged before the WAL is flushed for the whole suite (tests/conftest.py).
    rng = np.random.default_rng(SEED)
    respondent = APIClient()
    path = f"/api/v1/surveys/{survey.slug}/responses/"
    reported_yes = 0
    for _ in range(N):
        truth = bool(rng.random() < TRUE_PI)
        report = simulation.randomize_yes_no(COIN, truth, rng)
        reported_yes += report
        r = respondent.post(
            path,
            {
                "submission_id": str(simulation.submission_uuid(rng)),
                "randomizer": "browser",
                "answers": {"trait": report},
            },
            format="json",
        )
        assert r.status_code == 201, r.content

    researcher = APIClient()
    researcher.force_authenticate(owner)
    body = researcher.get(f"/api/v1/surveys/{survey.slug}/estimates/").json()
    assert body["respondents"] == N
    (q,) = body["questions"]
    expected = rr.estimate_binary(rr.design_from_spec(COIN), n=N, reported_yes=reported_yes)
    assert q["n"] == N and q["reported_yes"] == reported_yes
    for name in ("estimate", "estimate_unclipped", "std_error", "ci_low", "ci_high"):
        assert math.isclose(q[name], getattr(expected, name), rel_tol=0, abs_tol=1e-12), name
    assert q["ci_low"] <= TRUE_PI <= q["ci_high"]
    # Sanity: the coin design's SE at n = 5,000 is about √(λ(1−λ)/n)/c ≈ 0.0137.
    assert 0.012 < q["std_error"] < 0.015
