"""The dashboard's regression panel and comparisons (server-rendered)."""

from __future__ import annotations

import numpy as np
import pytest
from django.test import Client

from tests.surveys.analysis.support import load_reports, simulated_answers
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_regression_panel_table_and_chart(page, survey) -> None:
    load_reports(survey, simulated_answers(np.random.default_rng(2), 1500))
    html = page.get(
        f"/surveys/{survey.slug}/analysis/?outcome=coin&predictors=age&predictors=hours"
    ).content.decode()
    assert 'id="regression-form"' in html
    for term in ("(Intercept)", "age=old", "hours"):
        assert f'data-term="{term}"' in html
    assert 'class="or-chart"' in html and "Odds ratios" in html
    assert (
        f"/api/v1/surveys/{survey.slug}/regression/?outcome=coin&amp;predictors=age%2Chours&amp;format=csv"
        in html
    )
    assert "NaN" not in html


def test_regression_panel_reports_bad_input_without_500(page, survey) -> None:
    r = page.get(f"/surveys/{survey.slug}/analysis/?outcome=coin&predictors=age")
    assert r.status_code == 200
    assert "Too few respondents" in r.content.decode()
    r = page.get(f"/surveys/{survey.slug}/analysis/?outcome=party")
    assert r.status_code == 200 and "outcome:" in r.content.decode()


def test_comparisons_under_the_crosstab(page, survey) -> None:
    for i in range(30):
        answers = full_answers(
            age="old" if i % 2 else "young", coin=bool(i % 3), party="abcd"[i % 4]
        )
        submit(survey, answers)
    html = page.get(f"/surveys/{survey.slug}/results/?group_by=age").content.decode()
    assert 'id="comparisons"' in html and 'data-key="coin"' in html
    assert "equal prevalence" in html and "equal distributions" in html
    assert "Nothing to test" in html  # mirror: every report is "no"
    assert 'id="comparisons"' not in page.get(f"/surveys/{survey.slug}/results/").content.decode()


def test_regression_panel_linear_model(page, survey) -> None:
    """family=linear from the dashboard: a number outcome on a randomized yes/no predictor; the
    words in English and Spanish; no odds-ratio chart (a linear effect)."""
    from tests.surveys.analysis.test_linear_regression import simulated

    load_reports(survey, simulated(np.random.default_rng(3), 400))
    query = "?family=linear&outcome=hours&predictors=age&predictors=coin"
    html = page.get(f"/surveys/{survey.slug}/analysis/{query}").content.decode()
    assert 'id="reg-family"' in html and '<option value="linear" selected>' in html
    for term in ("(Intercept)", "age=old", "coin"):
        assert f'data-term="{term}"' in html
    assert 'id="regression-sigma"' in html and "Residual standard deviation" in html
    assert "in the outcome&#x27;s units" in html or "in the outcome's units" in html
    assert 'class="or-chart"' not in html
    assert "family=linear" in html and "format=csv" in html
    # Researcher pages render in LANGUAGE_CODE (deniable/locale.py); the panel's new words are
    # in the catalogues all the same, in Spanish too.
    from django.utils import translation

    with translation.override("es"):
        assert translation.gettext("Linear: a number outcome") == "Lineal: un resultado numérico"
        assert translation.gettext("Residual standard deviation σ = %(sigma)s.") == (
            "Desviación típica residual σ = %(sigma)s."
        )


def test_regression_panel_linear_bad_input_without_500(page, survey) -> None:
    r = page.get(f"/surveys/{survey.slug}/analysis/?family=linear&outcome=coin&predictors=age")
    assert r.status_code == 200 and "outcome:" in r.content.decode()
