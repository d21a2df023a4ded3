"""The regression API (``GET …/regression/``) on a survey holding the RRlog fixtures' reports
equals ``RRreg::RRlog`` (tests/peers/make_fixtures.R): the whole code path — the survey's
stored design, the pooled ``GROUP BY`` over the published reports, the category coding with its
reference, ``fit_logistic`` and the JSON body. Tolerances as tests/peers/test_rrlog.py (RRlog's
``optim`` stops about 1e-5 from the optimum; SEs from the observed information on both sides).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys import services
from tests.peers.fixture import load
from tests.surveys.analysis.support import load_reports
from testsupport import factories

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "name", ["forced_response", "warner", "unrelated_question", "crosswise", "two_probability"]
)
def test_regression_api_equals_rrlog(name: str) -> None:
    fixture = load(f"rrlog_{name}")
    levels = fixture["region_levels"]
    user = factories.make_user("peers")
    questions = [
        {"key": "r", "text": "Sensitive?", "kind": "yes_no", "design": fixture["design"]},
        {"key": "region", "text": "Region", "kind": "category", "options": levels},
        {"key": "hours", "text": "Hours", "kind": "number", "min": -10, "max": 10},
    ]
    survey = factories.survey_create(owner=user, data={"title": "Peers", "questions": questions})
    services.survey_open(survey=survey)
    rows = zip(fixture["reports"], fixture["region"], fixture["hours"], strict=True)
    load_reports(
        survey,
        [{"r": bool(r), "region": levels[g], "hours": float(h)} for r, g, h in rows],
    )
    url = reverse("api-survey-regression", kwargs={"slug": survey.slug})
    response = factories.api_client(user).get(url + "?outcome=r&predictors=region,hours")
    assert response.status_code == 200, response.content
    body = response.json()
    peer = fixture["peer"]
    assert body["n"] == len(fixture["reports"]) and body["converged"] and not body["warnings"]
    assert body["reference"] == {"region": "east"}
    assert [c["term"] for c in body["coefficients"]] == fixture["terms"]
    assert [c["estimate"] for c in body["coefficients"]] == pytest.approx(peer["coef"], abs=5e-5)
    assert [c["std_error"] for c in body["coefficients"]] == pytest.approx(peer["se"], rel=1e-4)
    assert peer["log_lik"] - 1e-9 <= body["log_likelihood"] <= peer["log_lik"] + 1e-6
