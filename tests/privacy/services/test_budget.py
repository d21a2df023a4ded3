"""The per-survey budget (docs/privacy-model.md#budget): charged before running, never overspent,
409 with what remains, refunds, the budget endpoint and the cost preview."""

from __future__ import annotations

import math

import pytest

from dpcore.central import accounting
from privacy.models import LedgerEntry, Release
from privacy.selectors import survey_ledger_events
from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(owner):
    return api_client(owner)


def release(client, survey, **body):
    return client.post(f"/api/v1/surveys/{survey.slug}/releases/", body, format="json")


def budget(client, survey):
    return client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()


def test_laplace_releases_fit_exactly_then_409_with_remaining(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    one = {"mechanism": "laplace", "epsilon": 0.1, "questions": ["cheated"]}
    # 0.1 ten times is 1.0000000000000002 in binary: the accountant's slack lets the 10th in.
    for _ in range(10):
        assert release(client, survey, **one).status_code == 202
    response = release(client, survey, **one)
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "budget_exceeded"
    assert body["detail"]
    assert set(body["remaining"]) == {"epsilon", "delta"}
    # RDP composes ten ε = 0.1 pieces to slightly under 1: a little remains, less than 0.1.
    assert 0.0 <= body["remaining"]["epsilon"] < 0.1
    assert body["remaining"]["delta"] == survey.budget_delta
    assert LedgerEntry.objects.count() == 10
    assert Release.objects.count() == 10
    spent = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    assert spent.epsilon <= survey.budget_epsilon * (1 + 1e-9)


def test_409_reports_what_remains_and_a_smaller_release_still_fits(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    assert release(client, survey, mechanism="laplace", epsilon=0.7).status_code == 202
    response = release(client, survey, mechanism="laplace", epsilon=0.5)
    assert response.status_code == 409
    remaining = response.json()["remaining"]["epsilon"]
    spent = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    assert remaining == pytest.approx(1.0 - spent.epsilon, abs=1e-12)
    # The exact pure-DP accountant charges one ε₀ = 0.7 release ε₀ + ln(1 − δ/p) — a hair under
    # 0.7 — so a little more than 0.3 remains, never less.
    assert 0.3 <= remaining < 0.3 + 1e-4
    assert LedgerEntry.objects.count() == 1
    assert release(client, survey, mechanism="laplace", epsilon=0.3).status_code == 202


def test_budget_endpoint_composes_and_names_the_method(client, owner):
    survey = make_survey(owner, epsilon=3.0, delta=1e-5, respondents=5)
    empty = budget(client, survey)
    assert empty["epsilon_spent"] == 0.0
    assert empty["epsilon_remaining"] == 3.0
    assert empty["releases"] == []
    for _ in range(3):
        assert release(client, survey, mechanism="gaussian", rho=0.02).status_code == 202
    body = budget(client, survey)
    assert body["epsilon_total"] == 3.0
    assert body["delta_total"] == 1e-5
    # Issue 13: the ledger names the discrete Gaussian itself, and its PLD is charged — never
    # more than the ρ-zCDP-only accounting (RDP) that charged these releases before.
    zcdp_only = accounting.epsilon_spent([accounting.ZCDPEvent(0.02)] * 3, 1e-5)
    assert zcdp_only.method == "rdp"
    expected = accounting.epsilon_spent(survey_ledger_events(survey=survey), 1e-5)
    assert body["epsilon_spent"] == pytest.approx(expected.epsilon)
    assert body["method"] == expected.method == "pld"
    assert expected.epsilon < zcdp_only.epsilon
    assert body["epsilon_remaining"] == pytest.approx(3.0 - expected.epsilon)
    assert len(body["releases"]) == 3
    assert all(r["charged"] for r in body["releases"])


def test_gaussian_epsilon_delta_is_charged_at_most_the_request(client, owner):
    survey = make_survey(owner, epsilon=1.0, delta=1e-5, respondents=5)
    response = release(client, survey, mechanism="gaussian", epsilon=0.5, delta=1e-5)
    assert response.status_code == 202
    rel = Release.objects.get(pk=response.json()["id"])
    assert rel.rho == pytest.approx(5 / (2 * rel.noise_scale**2))  # m = 5 (age counts twice)
    charged = budget(client, survey)["epsilon_spent"]
    assert charged <= 0.5 + 1e-9
    assert charged == pytest.approx(0.5, rel=1e-6)


def test_laplace_event_is_one_piece_per_contribution(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    assert release(client, survey, mechanism="laplace", epsilon=0.6).status_code == 202
    entry = LedgerEntry.objects.get()
    # Issue 13: a composite entry — cheated, drug, region and age's count (Δ = 1) as one part,
    # age's grid sum (shift K) as the other; five pieces in all.
    assert entry.event["type"] == "composite"
    plain, grid_sum = entry.event["parts"]
    assert plain["type"] == "discrete_laplace" and plain["count"] == 4
    assert grid_sum["type"] == "shifted_discrete_laplace" and grid_sum["count"] == 1
    assert grid_sum["shift"] == _sum_grid()
    for part in (plain, grid_sum):
        assert part["epsilon_each"] == pytest.approx(0.12)
        assert part["epsilon_each"] >= 0.6 / 5  # rounded up, never under-charged


def test_refunded_entries_do_not_count(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    assert release(client, survey, mechanism="laplace", epsilon=1.0).status_code == 202
    assert release(client, survey, mechanism="laplace", epsilon=0.1).status_code == 409
    LedgerEntry.objects.update(refunded=True)
    assert budget(client, survey)["epsilon_spent"] == 0.0
    assert release(client, survey, mechanism="laplace", epsilon=1.0).status_code == 202


def test_preview_reports_cost_and_accuracy_and_charges_nothing(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=40)
    assert release(client, survey, mechanism="laplace", epsilon=0.25).status_code == 202
    path = f"/api/v1/surveys/{survey.slug}/releases/preview/"
    response = client.post(path, {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    assert response.status_code == 200
    body = response.json()
    # Alone, the release costs its ε up to the exact accountant's hair (never more).
    assert 0.5 - 1e-4 < body["epsilon_cost"] <= 0.5 * (1 + 1e-9)
    assert 0.25 - 1e-4 < body["epsilon_spent_before"] <= 0.25 * (1 + 1e-9)
    # 5 + 5 pieces of ε/5: RDP composes them a little below the basic 0.75.
    assert 0.74 < body["epsilon_after"] <= 0.75 * (1 + 1e-9)
    assert body["fits"] is True
    assert body["noise_scale"] == pytest.approx(10.0)  # m = 5 contributions at ε = 0.5
    assert body["contributions"] == 5
    assert body["count_std_error"] == pytest.approx(
        math.sqrt(2 * math.exp(-1 / 10) / (1 - math.exp(-1 / 10)) ** 2)
    )
    assert [q["key"] for q in body["questions"]] == ["cheated", "drug", "region", "age"]
    age = body["questions"][3]
    assert age["grid_step"] == 0.05 and age["sum_sensitivity"] == 1981
    # The sum's noise: discrete Laplace of scale K·t = 1981·10 grid units of 0.05.
    t_sum = 1981 * 10
    assert age["expected_sum_std_error"] == pytest.approx(
        0.05 * math.sqrt(2 * math.exp(-1 / t_sum) / (1 - math.exp(-1 / t_sum)) ** 2)
    )
    assert all(q["expected_half_width"] > q["expected_std_error"] > 0 for q in body["questions"])
    too_much = client.post(path, {"mechanism": "laplace", "epsilon": 0.9}, format="json").json()
    assert too_much["fits"] is False
    assert LedgerEntry.objects.count() == 1


MIXED = ["cheated", "drug", "age"]  # yes_no + choice + number: m = 1 + 1 + 2 = 4


def _sum_grid():
    from fractions import Fraction

    from dpcore.central import sensitivity as release_math

    step = release_math.grid_step(18, 99)
    assert step == Fraction(1, 20)
    return release_math.sum_sensitivity(18, 99, step)


def test_mixed_laplace_charge_equals_the_request(client, owner):
    """Σ_j Δ_j/t_j = ε over the four contributions, and the ledger charges exactly ε."""
    survey = make_survey(owner, epsilon=1.0, respondents=10)
    response = release(client, survey, mechanism="laplace", epsilon=0.4, questions=MIXED)
    assert response.status_code == 202
    rel = Release.objects.get(pk=response.json()["id"])
    entry = LedgerEntry.objects.get(release=rel)
    k = _sum_grid()
    eps_each = entry.event["parts"][0]["epsilon_each"]
    # Issue 13: the grid sum is its own part (a discrete Laplace moved by ≤ K), for the PLD.
    assert entry.event == {
        "type": "composite",
        "parts": [
            {"type": "discrete_laplace", "epsilon_each": eps_each, "count": 3},
            {"type": "shifted_discrete_laplace", "epsilon_each": eps_each, "shift": k, "count": 1},
        ],
    }
    assert 0.1 <= eps_each <= 0.1 * (1 + 1e-15)
    t = rel.noise_scale
    assert t == pytest.approx(4 / 0.4)
    # histogram, histogram, sum (Δ = K, scale K·t), count (Δ = 1, scale t)
    spent_by_design = 1 / t + 1 / t + k / (k * t) + 1 / t
    assert spent_by_design == pytest.approx(0.4)
    charged = budget(client, survey)
    # Four ε/4 pure events: the exact composition is a hair under the basic sum 0.4, never above.
    # Issue 13: the grid sum's own PLD (a discrete Laplace moved by ≤ K, not randomized response)
    # may be charged instead when it is lower; it is never above the pure-DP (RR) composition.
    assert 0.4 - 1e-3 < charged["epsilon_spent"] <= 0.4 * (1 + 1e-9)
    assert charged["method"] in {"exact_pure", "pld"}
    assert charged["epsilon_spent"] <= charged["candidates"]["exact_pure"]


def test_mixed_gaussian_rho_charge_equals_the_request(client, owner):
    """σ_j = Δ_j·σ: ρ = Σ_j Δ_j²/(2σ_j²) = m/(2σ²) = the requested ρ."""
    survey = make_survey(owner, epsilon=5.0, delta=1e-5, respondents=10)
    response = release(client, survey, mechanism="gaussian", rho=0.05, questions=MIXED)
    assert response.status_code == 202
    rel = Release.objects.get(pk=response.json()["id"])
    sigma = rel.noise_scale
    assert sigma == pytest.approx(math.sqrt(4 / (2 * 0.05)))
    k = _sum_grid()
    rho_by_design = 2 * (1 / (2 * sigma**2)) + k**2 / (2 * (k * sigma) ** 2) + 1 / (2 * sigma**2)
    assert rho_by_design == pytest.approx(0.05)
    entry = LedgerEntry.objects.get(release=rel)
    # Issue 13: the discrete Gaussians themselves (σ_j = Δ_jσ, rounded down), composite.
    assert entry.event["type"] == "composite"
    plain, grid_sum = entry.event["parts"]
    assert plain["type"] == grid_sum["type"] == "discrete_gaussian"
    assert (plain["l2_sensitivity"], plain["count"]) == (1.0, 3)
    assert (grid_sum["l2_sensitivity"], grid_sum["count"]) == (float(k), 1)
    assert plain["sigma"] <= sigma and grid_sum["sigma"] <= k * sigma
    charged_rho = accounting.zcdp_rho(survey_ledger_events(survey=survey))
    assert charged_rho == pytest.approx(0.05, rel=1e-15)
    assert charged_rho >= 0.05
    # Issue 13: charged through the discrete Gaussian's own PLD — below the ρ-only charge.
    zcdp_only = accounting.epsilon_spent([accounting.ZCDPEvent(0.05)], 1e-5).epsilon
    expected = accounting.epsilon_spent(survey_ledger_events(survey=survey), 1e-5)
    assert expected.method == "pld"
    assert budget(client, survey)["epsilon_spent"] == pytest.approx(expected.epsilon)
    assert expected.epsilon < zcdp_only


def test_mixed_gaussian_epsilon_delta_charge_is_the_request(client, owner):
    survey = make_survey(owner, epsilon=1.0, delta=1e-5, respondents=10)
    response = release(
        client, survey, mechanism="gaussian", epsilon=0.5, delta=1e-5, questions=MIXED
    )
    assert response.status_code == 202
    rel = Release.objects.get(pk=response.json()["id"])
    # Issue 13: σ calibrated against the discrete Gaussian's profile for these contributions.
    assert rel.noise_scale == pytest.approx(
        accounting.gaussian_sigma_for_budget(
            0.5, 1e-5, math.sqrt(4), sensitivities=[1, 1, _sum_grid(), 1]
        ),
        rel=1e-12,
    )
    assert rel.rho == pytest.approx(4 / (2 * rel.noise_scale**2))
    charged = budget(client, survey)["epsilon_spent"]
    assert charged <= 0.5 * (1 + 1e-9)
    assert charged == pytest.approx(0.5, rel=1e-6)


def test_mixed_releases_fill_the_budget_exactly_then_409(client, owner):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    body = {"mechanism": "laplace", "epsilon": 0.25, "questions": MIXED}
    for _ in range(4):
        assert release(client, survey, **body).status_code == 202
    assert release(client, survey, **body).status_code == 409
    spent = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    assert spent.epsilon <= 1.0 * (1 + 1e-9)
    assert LedgerEntry.objects.count() == 4
