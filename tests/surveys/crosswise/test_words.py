"""Issue 22.9: the crosswise model's words on the dashboard and in the builder's preview.

The dashboard labelled the crosswise row "yes" with "Reported 65.9%" (the share answering SAME);
the preview's deniability was about SAME, which *lowers* the posterior when p < ½ (DIFFERENT is
the revealing answer: prior 10% → 25%, not 3.6%). Expected numbers by Bayes, by hand.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.kinds.crosswise import CROSSWISE_LABEL
from tests.surveys.api.support import API, open_survey
from tests.surveys.crosswise.test_statements import BODY, LIBRARY
from testsupport import factories

pytestmark = pytest.mark.django_db


def test_the_preview_names_different_as_the_revealing_answer(api):
    design = {
        "name": "crosswise",
        "innocuous_prevalence": 0.25,
        "innocuous_text": LIBRARY["text"],
    }
    r = api.post(f"{API}/designs/preview/", {"kind": "yes_no", "design": design}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    # P(trait | SAME) = 0.1·¼ / (0.1·¼ + 0.9·¾) = 0.0357; P(trait | DIFFERENT) = 0.075/0.3 = 0.25.
    assert body["deniability"] == pytest.approx(0.025 / 0.7)
    assert body["revealing_report"] is False
    assert body["revealing_deniability"] == pytest.approx(0.25)


def test_the_coin_keeps_yes_as_the_revealing_answer(api):
    r = api.post(f"{API}/designs/preview/", {"kind": "yes_no"}, format="json")
    body = r.json()
    assert body["revealing_report"] is True
    assert body["revealing_deniability"] == pytest.approx(body["deniability"])


def test_the_dashboard_row_says_same_and_prevalence_not_yes(api, client):
    body = {k: v for k, v in BODY.items() if k not in ("languages", "translations")}
    survey = open_survey(api, body)
    # Published batches only reach the page: submit well past one batch of k.
    factories.submit_many(
        survey, 3 * settings.DENIABLE_ESTIMATE_BATCH, lambda i: {"cross": i % 3 == 0}
    )
    client.force_login(survey.owner)
    page = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    row = re.search(r'<tr data-key="cross"[^>]*>.*?</tr>', page, re.S)
    assert row is not None, page
    assert 'data-option="yes"' not in row.group(0)
    assert CROSSWISE_LABEL in row.group(0)
    assert re.search(r"%\s*<span[^>]*>SAME</span>", row.group(0))
