"""The regression states its real baseline (issue 22 item 7, DESIGN §8.4): ``reference`` (the
first option with respondents among the fitted rows), ``dropped_levels`` (options without) and
``n_excluded`` (left out for a missing outcome or predictor), in the JSON, the OpenAPI schema, the
CSV and the dashboard's regression section. The demo's shape: *Children* is asked from 30 on, so
with it as a predictor ``18-29`` has no fitted rows."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from django.template.loader import render_to_string
from scipy.special import expit

from tests.surveys.analysis.support import load_reports
from testsupport.factories import make_survey

pytestmark = pytest.mark.django_db

AGES = ["18-29", "30-44", "45-64", "65+"]


@pytest.fixture
def demo_shaped(alice):
    survey = make_survey(
        alice,
        {
            "title": "Demo shape",
            "questions": [
                {"key": "cheated", "text": "Cheated?", "kind": "yes_no"},
                {"key": "age_group", "text": "Age", "kind": "category", "options": AGES},
                {
                    "key": "children",
                    "text": "Children",
                    "kind": "number",
                    "min": 0,
                    "max": 12,
                    "required": False,
                    "show_if": {"key": "age_group", "in": AGES[1:]},
                },
            ],
        },
    )
    rng = np.random.default_rng(722)
    answers = []
    for i in range(800):
        age = AGES[i % 4]
        trait = rng.random() < expit(-1.0 + 0.3 * AGES.index(age))
        report = trait if rng.random() < 0.5 else rng.random() < 0.5  # coin: c = ½, d = ¼
        answer = {"cheated": bool(report), "age_group": age}
        if age != "18-29":  # skip logic: not asked below 30
            answer["children"] = int(rng.integers(0, 4))
        if i % 50 == 7:
            del answer["cheated"]  # an outcome left out (optional answers, or a bulk load)
        answers.append(answer)
    load_reports(survey, answers)
    excluded = sum(1 for a in answers if "cheated" not in a or "children" not in a)
    return survey, excluded


def _url(survey, query):
    return f"/api/v1/surveys/{survey.slug}/regression/?outcome=cheated&{query}"


def test_the_reference_is_the_first_level_with_fitted_rows(api, demo_shaped):
    survey, excluded = demo_shaped
    body = api.get(_url(survey, "predictors=age_group,children")).json()
    assert body["reference"] == {"age_group": "30-44"}
    assert body["dropped_levels"] == {"age_group": ["18-29"]}
    assert body["n_excluded"] == excluded and body["n"] + excluded == 800
    terms = [c["term"] for c in body["coefficients"]]
    assert terms == ["(Intercept)", "age_group=45-64", "age_group=65+", "children"]
    # No level is dropped by the fit as "not identified": the baseline is the one stated.
    assert not any("identified" in w for w in body["warnings"]), body["warnings"]
    assert all(c["std_error"] is not None for c in body["coefficients"])


def test_without_the_skip_logic_predictor_every_level_is_fitted(api, demo_shaped):
    survey, _ = demo_shaped
    body = api.get(_url(survey, "predictors=age_group")).json()
    assert body["reference"] == {"age_group": "18-29"}
    assert body["dropped_levels"] == {"age_group": []}
    assert body["n_excluded"] == 16  # the outcomes left out (i % 50 == 7)


def test_the_csv_states_the_baseline(api, demo_shaped):
    survey, excluded = demo_shaped
    text = api.get(_url(survey, "predictors=age_group,children&format=csv")).content.decode()
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert {r["reference"] for r in rows} == {"'age_group=30-44"}
    assert {r["dropped_levels"] for r in rows} == {"'age_group=18-29"}
    assert {r["n_excluded"] for r in rows} == {str(excluded)}


def test_the_schema_names_the_fields(api):
    schema = api.get("/api/v1/schema/?format=json").json()
    props = schema["components"]["schemas"]["RegressionOut"]["properties"]
    assert {"reference", "dropped_levels", "n_excluded"} <= set(props)


def test_the_dashboard_says_the_reference_the_empty_levels_and_who_was_left_out(api, demo_shaped):
    survey, excluded = demo_shaped
    body = api.get(_url(survey, "predictors=age_group,children")).json()
    html = render_to_string(
        "surveys/_regression.html",
        {
            "regression_outcomes": [{"key": "cheated", "text": "Cheated?"}],
            "regression_predictors": [{"key": "age_group", "text": "Age", "kind": "category"}],
            "regression": {"outcome": "cheated", "predictors": ["age_group"], "body": body},
        },
    )
    assert "compared with their first option" not in html
    assert "age_group: compared with <strong>30-44</strong>" in html
    assert "18-29: no respondents in the fit, so no term" in html
    assert f"{excluded} respondents left out because the outcome or a predictor was not" in html
