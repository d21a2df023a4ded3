"""The charge inside the budget lock is bounded; the spent figure is stored and read
(issue 21 item 11, issue 24 goal 2; docs/privacy-model.md#budget).

Attack: a ledger of many *distinct* tiny-ρ discrete-Gaussian events (σ ≈ 7·10⁵) made the PLD
accountant take ≈ 2.7 s per event *inside* the budget lock, and every survey list ran it cold.
Timing is benchmarked (``bench/pld_accounting.py``, bench/RESULTS.md); here: the charge is made
with the tight figure computed before the lock, a ledger that moves meanwhile gets the sound
composed-state bound (never below the tight ε), and the lists read the stored figure.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from dpcore.central import accounting, event_codec, ledger_state
from privacy.models import BudgetState, LedgerEntry, Release
from privacy.selectors import survey_ledger_events
from privacy.services import budget as budget_service
from privacy.services import release_fail, spent
from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db

TINY = [accounting.DiscreteGaussianEvent(7e5 + 13.7 * i, 1.0) for i in range(300)]


def _charge_directly(survey, events) -> None:
    """Ledger rows as a long history leaves them (one release each), without the charge."""
    for ev in events:
        release = Release.objects.create(
            survey=survey,
            mechanism="gaussian",
            rho=getattr(ev, "rho", None),
            noise_scale=getattr(ev, "sigma", 1.0),
            l1_sensitivity=1.0,
            l2_sensitivity=1.0,
        )
        LedgerEntry.objects.create(survey=survey, release=release, event=event_codec.encode([ev]))


def _release(client, survey, **body):
    body.setdefault("questions", ["cheated"])
    return client.post(f"/api/v1/surveys/{survey.slug}/releases/", body, format="json")


def test_three_hundred_distinct_tiny_rho_events_then_a_charge(owner):
    survey = make_survey(owner, epsilon=1.0, delta=1e-6, respondents=5)
    _charge_directly(survey, TINY)
    client = api_client(owner)
    response = _release(client, survey, mechanism="laplace", epsilon=0.5)
    assert response.status_code == 202, response.content
    state = BudgetState.objects.get(survey=survey)
    events = survey_ledger_events(survey=survey)
    tight = accounting.epsilon_spent(events, survey.budget_delta)
    # The ledger did not move: the tight figure computed before the lock is the one charged.
    assert state.entries == 301
    assert (state.epsilon, state.method) == (tight.epsilon, tight.method)
    assert state.method == "pld"
    assert spent.fingerprint_of(state) == spent.ledger_fingerprint(survey_id=survey.pk)


def test_a_ledger_that_moves_meanwhile_gets_the_sound_composed_bound(owner, monkeypatch):
    """Every computation outside the lock is overtaken by a concurrent charge (simulated: a
    release charged and its figure stored in between): after CHARGE_ATTEMPTS the charge composes
    its events onto the stored state inside the lock — never below the tight ε."""
    survey = make_survey(owner, epsilon=5.0, delta=1e-6, respondents=5)
    _charge_directly(survey, TINY[:20])
    original = budget_service._tight_outside_the_lock
    calls = []

    def overtaken(s, new):
        outside = original(s, new)
        calls.append(1)
        _charge_directly(survey, [accounting.DiscreteGaussianEvent(3.0 + len(calls), 1.0)])
        spent.state_refresh(survey=survey)  # what the concurrent charge stored
        return outside

    monkeypatch.setattr(budget_service, "_tight_outside_the_lock", overtaken)
    response = _release(api_client(owner), survey, mechanism="gaussian", rho=0.02)
    assert response.status_code == 202, response.content
    assert len(calls) == budget_service.CHARGE_ATTEMPTS
    state = BudgetState.objects.get(survey=survey)
    assert state.method in {"basic", "zcdp", "rdp"}
    events = survey_ledger_events(survey=survey)
    assert spent.fingerprint_of(state) == spent.ledger_fingerprint(survey_id=survey.pk)
    assert state.epsilon >= accounting.epsilon_spent(events, survey.budget_delta).epsilon
    composed = ledger_state.compose(ledger_state.EMPTY, events)
    assert state.epsilon == pytest.approx(
        ledger_state.bound(composed, survey.budget_delta).epsilon, rel=1e-12
    )


def test_a_moved_ledger_still_refuses_what_does_not_fit(owner, monkeypatch):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    client = api_client(owner)
    assert _release(client, survey, mechanism="laplace", epsilon=0.75).status_code == 202
    original = budget_service._tight_outside_the_lock

    def overtaken(s, new):
        outside = original(s, new)
        _charge_directly(survey, [accounting.DiscreteLaplaceEvent(0.125)])
        spent.state_refresh(survey=survey)
        return outside

    monkeypatch.setattr(budget_service, "_tight_outside_the_lock", overtaken)
    # 0.75 + 3 × 0.125 (the concurrent charges) + 0.25 > 1: refused, with what remains.
    response = _release(client, survey, mechanism="laplace", epsilon=0.25)
    assert response.status_code == 409
    assert 0.0 <= response.json()["remaining"]["epsilon"] < 0.25
    assert LedgerEntry.objects.filter(survey=survey).count() == 4


def test_lists_and_the_budget_read_the_stored_figure(owner):
    """Patch-free: a stored figure no accountant would give is what every list shows."""
    survey = make_survey(owner, epsilon=2.0, respondents=5)
    client = api_client(owner)
    assert _release(client, survey, mechanism="laplace", epsilon=0.5).status_code == 202
    BudgetState.objects.filter(survey=survey).update(epsilon=0.8125, method="pld")
    api_list = {s["slug"]: s for s in client.get("/api/v1/surveys/").json()}
    assert api_list[survey.slug]["budget_left"] == 2.0 - 0.8125
    assert client.get(f"/api/v1/surveys/{survey.slug}/").json()["budget_left"] == 2.0 - 0.8125
    budget = client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()
    assert budget["epsilon_spent"] == 0.8125
    client.force_login(owner)
    page = client.get(reverse("researcher-home"))
    assert page.status_code == 200
    assert "1.188 of 2" in page.content.decode()  # 2 − 0.8125 = 1.1875, floatformat:"-3"


def test_a_refund_refreshes_the_stored_figure(owner):
    survey = make_survey(owner, epsilon=2.0, respondents=5)
    client = api_client(owner)
    assert _release(client, survey, mechanism="laplace", epsilon=0.5).status_code == 202
    release = Release.objects.get(survey=survey)
    assert BudgetState.objects.get(survey=survey).epsilon == pytest.approx(0.5, rel=1e-3)
    release_fail(release_id=release.pk, error="test")
    state = BudgetState.objects.get(survey=survey)
    assert (state.epsilon, state.method, state.entries) == (0.0, "none", 0)


def test_ledgers_from_before_the_stored_figure_are_read_once_then_stored(owner):
    survey = make_survey(owner, epsilon=2.0, respondents=5)
    _charge_directly(survey, [*TINY[:3], accounting.DiscreteLaplaceEvent(0.4)])
    assert not BudgetState.objects.filter(survey=survey).exists()
    client = api_client(owner)
    row = {s["slug"]: s for s in client.get("/api/v1/surveys/").json()}[survey.slug]
    tight = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    assert row["budget_left"] == 2.0 - tight.epsilon
    assert BudgetState.objects.get(survey=survey).epsilon == tight.epsilon
