"""Concurrent charges with the tight figure computed outside the lock (issue 21 item 11): check
and charge stay atomic — never overspent, the stored figure is the ledger's and never below it.
Threads race real transactions on PostgreSQL's row lock (``require_postgres``: the SQLite test
database is a shared-cache in-memory one whose table locks do not wait, as in
tests/surveys/test_concurrency.py)."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from dpcore.central import accounting
from privacy.models import BudgetState, LedgerEntry
from privacy.selectors import survey_ledger_events
from privacy.services import spent
from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db(transaction=True)


def _race(survey, owner, bodies) -> list[int]:
    barrier = threading.Barrier(len(bodies))
    codes: list[int] = []
    lock = threading.Lock()

    def attempt(body) -> None:
        try:
            client = api_client(owner)
            barrier.wait()
            code = client.post(
                f"/api/v1/surveys/{survey.slug}/releases/", body, format="json"
            ).status_code
            with lock:
                codes.append(code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return codes


def test_racing_gaussian_charges_never_overspend_and_store_the_ledgers_figure(
    require_postgres, owner
):
    survey = make_survey(owner, epsilon=1.0, respondents=5)
    # Distinct ρ per request (distinct PLD pairs); together far more than the budget.
    bodies = [
        {"mechanism": "gaussian", "rho": 0.01 + 0.002 * i, "questions": ["cheated"]}
        for i in range(6)
    ]
    codes = _race(survey, owner, bodies)
    assert len(codes) == 6 and set(codes) <= {202, 409}
    charged = codes.count(202)
    assert charged >= 1
    assert LedgerEntry.objects.filter(survey=survey).count() == charged
    events = survey_ledger_events(survey=survey)
    tight = accounting.epsilon_spent(events, survey.budget_delta)
    assert tight.epsilon <= survey.budget_epsilon * (1 + accounting.BUDGET_RELATIVE_SLACK)
    state = BudgetState.objects.get(survey=survey)
    assert spent.fingerprint_of(state) == spent.ledger_fingerprint(survey_id=survey.pk)
    assert state.epsilon >= tight.epsilon
