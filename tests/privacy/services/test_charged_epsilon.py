"""One figure, the one charged (issue 22.12): each release records what charging it added to the
survey's spent ε, so the history's figures add up to the budget's. The release history showed
"ε 0.5" while the budget recorded 0.498 (a Laplace release composed at the survey's δ by the PLD
accountant is charged a little less than its ε)."""

from __future__ import annotations

import pytest

from dpcore.central import accounting
from privacy.models import Release
from privacy.selectors import survey_ledger_events
from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


def _release(client, survey, **body):
    body.setdefault("questions", ["cheated"])
    response = client.post(f"/api/v1/surveys/{survey.slug}/releases/", body, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def test_each_release_carries_what_it_added_and_they_add_up_to_the_budget(owner):
    survey = make_survey(owner, epsilon=3.0, delta=1e-6, respondents=5)
    client = api_client(owner)
    first = _release(client, survey, mechanism="laplace", epsilon=0.5)
    spent_after_first = client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()
    first["charged_epsilon"] = Release.objects.get(pk=first["id"]).charged_epsilon
    # The composition of one pure event at δ > 0 is below its ε: what the budget records.
    assert first["charged_epsilon"] == pytest.approx(spent_after_first["epsilon_spent"], abs=1e-12)
    assert first["charged_epsilon"] <= 0.5
    second = _release(client, survey, mechanism="gaussian", epsilon=0.7, delta=1e-7)
    second["charged_epsilon"] = Release.objects.get(pk=second["id"]).charged_epsilon
    budget = client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()
    charged = [r.charged_epsilon for r in Release.objects.filter(survey=survey)]
    assert sum(charged) == pytest.approx(budget["epsilon_spent"], rel=1e-12)
    tight = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    assert budget["epsilon_spent"] >= tight.epsilon
    listed = client.get(f"/api/v1/surveys/{survey.slug}/releases/").json()
    rows = listed["results"] if isinstance(listed, dict) and "results" in listed else listed
    by_id = {r["id"]: r["charged_epsilon"] for r in rows}
    assert by_id[first["id"]] == first["charged_epsilon"]
    assert by_id[second["id"]] == second["charged_epsilon"] > 0
