"""Goodness of fit on the estimates API and the dashboard (issue 26.7, docs/analysis.md
#goodness-of-fit): ``fit`` on cheating detection and crosswise equals an independent scipy fit,
is null where the design has no test, and the dashboard says in English and Spanish when the
answers contradict the design."""

from __future__ import annotations

import copy
import uuid

import pytest
from scipy import stats

from dpcore.local.cheater import cheater_detection
from tests.dpcore.local.test_fit import _scipy_g2
from tests.surveys.api.support import open_survey
from tests.surveys.cheater.support import BODY, GROUPS, url
from tests.surveys.crosswise.test_statements import BODY as CROSSWISE_BODY
from testsupport import factories

pytestmark = pytest.mark.django_db


def _submit(survey, answers):
    factories.submission_create(
        survey=survey, submission_id=str(uuid.uuid4()), randomizer="browser", answers=answers
    )


def _cheater_survey(api, yes_by_group):
    """``yes_by_group[g]`` = (yes, n) in group g + 1."""
    survey = open_survey(api, BODY)
    for group, (yes, n) in enumerate(yes_by_group, start=1):
        for i in range(n):
            _submit(survey, {"cdm": {"group": group, "report": i < yes}, "age": "old"})
    return survey


def _entry(api, survey, key):
    body = api.get(url(survey, "estimates/")).json()
    return next(q for q in body["questions"] if q["key"] == key)


def test_cheater_fit_rejects_data_outside_the_simplex(api, client):
    # λ̂ = (¾, ¼): this design needs λ₂ ≥ λ₁ (group 2 forces more YES), so no (π, β, γ) fits.
    survey = _cheater_survey(api, [(15, 20), (5, 20)])
    fit = _entry(api, survey, "cdm")["fit"]
    design = cheater_detection(GROUPS)
    assert fit["statistic"] == "G2" and fit["df"] in (1, 2)
    assert fit["value"] == pytest.approx(_scipy_g2(design, [15, 5], [20, 20]), abs=1e-6)
    assert fit["p_value"] < 0.05 and "Self & Liang" in fit["note"]
    client.force_login(survey.owner)
    html = client.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="fit-warnings"' in html
    assert "The answers contradict this design&#x27;s assumptions (G² = " in html
    assert "cheaters (who say NO whatever the device says)" in html


def test_cheater_fit_inside_the_simplex_is_zero_and_not_shown(api, client):
    # λ̂ = (0.4, 0.55) = A·(π, β) with π = 0.3, β = 0.5 (γ = 0.2): inside.
    survey = _cheater_survey(api, [(8, 20), (11, 20)])
    fit = _entry(api, survey, "cdm")["fit"]
    assert fit["value"] == 0.0 and fit["p_value"] == 1.0
    client.force_login(survey.owner)
    html = client.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="fit-warnings"' not in html


def test_crosswise_fit_against_scipy_and_null_elsewhere(api):
    survey = open_survey(api, copy.deepcopy(CROSSWISE_BODY))
    for _ in range(20):  # every answer SAME: P(SAME) = 1 is beyond max(p, 1 − p) = ¾
        _submit(survey, {"cross": True})
    fit = _entry(api, survey, "cross")["fit"]
    p = CROSSWISE_BODY["questions"][0]["design"]["innocuous_prevalence"]
    g2 = 2 * (stats.binom.logpmf(20, 20, 1.0) - stats.binom.logpmf(20, 20, max(p, 1 - p)))
    assert fit["value"] == pytest.approx(g2, rel=1e-9) and fit["df"] == 1
    assert fit["p_value"] == pytest.approx(0.5 * stats.chi2.sf(g2, 1), rel=1e-9)
    # A category question (and a forced-response yes/no) has no test: ``fit`` is null.
    cdm = _cheater_survey(api, [(8, 20), (11, 20)])
    assert _entry(api, cdm, "age")["fit"] is None
