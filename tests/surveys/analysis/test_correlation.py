"""GET /api/v1/surveys/<slug>/correlation/ (surveys.analysis.correlation;
docs/analysis.md#correlation): against RRreg's RRcor formula recomputed in the test, a
Monte-Carlo truth, and every 400 naming its field."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.dpcore.local.test_correlation import _rrcor
from tests.surveys.analysis.support import load_reports

pytestmark = pytest.mark.django_db


def url(survey, query: str = "") -> str:
    return f"/api/v1/surveys/{survey.slug}/correlation/{query}"


def _answers(rng, n):
    """Trait X (π = 0.3); hours = 20 + 15·X + N(0, 10²); a second trait W with P(W | X) =
    0.2 + 0.5·X. coin reports X (c = ½, d = ¼); mirror reports W by Warner p = 0.75 (c = ½,
    d = ¼)."""
    x = rng.random(n) < 0.3
    w = rng.random(n) < 0.2 + 0.5 * x
    hours = 20 + 15 * x + rng.normal(0, 10, n)
    coin = rng.random(n) < 0.5 * x + 0.25
    mirror = rng.random(n) < 0.5 * w + 0.25
    answers = [
        {"coin": bool(c), "mirror": bool(m), "hours": float(h)}
        for c, m, h in zip(coin, mirror, hours, strict=True)
    ]
    return x, w, hours, answers


def test_matches_rrcor_and_the_truth(api, survey):
    rng = np.random.default_rng(26)
    n = 4000
    *_, answers = _answers(rng, n)
    answers[0] = {"coin": True}  # no hours: left out
    load_reports(survey, answers)
    r = api.get(url(survey, "?x=coin&y=hours"))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["x"], body["y"], body["n"], body["n_excluded"]) == ("coin", "hours", n - 1, 1)
    z = np.array([a["coin"] for a in answers[1:]], dtype=float)
    y = np.array([a["hours"] for a in answers[1:]])
    assert body["estimate_unclipped"] == pytest.approx(_rrcor(z, y, 0.5, 0.25), rel=1e-9)
    # The true correlation of X and hours: 15·√(π(1−π)) / √(15²π(1−π) + 10²) at π = 0.3.
    truth = 15 * math.sqrt(0.21) / math.sqrt(225 * 0.21 + 100)
    assert abs(body["estimate"] - truth) < 5 * body["std_error"]
    assert body["ci_low"] < body["estimate"] < body["ci_high"] and body["p_value"] < 1e-6
    # Two randomized traits: corr(X, W) = 0.5·√(π(1−π)) / √(ρ(1−ρ)), ρ = 0.2 + 0.5·0.3.
    both = api.get(url(survey, "?x=coin&y=mirror&confidence=0.9")).json()
    rho = 0.2 + 0.5 * 0.3
    truth_xw = 0.5 * math.sqrt(0.21) / math.sqrt(rho * (1 - rho))
    assert both["confidence"] == 0.9 and both["n"] == n - 1
    assert abs(both["estimate_unclipped"] - truth_xw) < 5 * both["std_error"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "x"),
        ("?x=nope&y=hours", "x"),
        ("?x=coin", "y"),
        ("?x=coin&y=party", "y"),
        ("?x=age&y=coin", "x"),
        ("?x=coin&y=coin", "y"),
        ("?x=coin&y=hours&confidence=2", "confidence"),
    ],
)
def test_bad_input_is_400_naming_the_field(api, survey, query, field):
    r = api.get(url(survey, query))
    assert r.status_code == 400, r.content
    assert field in r.json()["errors"]


def test_no_respondents_gives_null_figures(api, survey):
    body = api.get(url(survey, "?x=coin&y=hours")).json()
    assert body["n"] == 0 and body["estimate"] is None and body["std_error"] is None


def test_dashboard_panel_shows_the_corrected_r(alice, survey):
    from django.test import Client

    page = Client()
    page.force_login(alice)
    *_, answers = _answers(np.random.default_rng(7), 1500)
    load_reports(survey, answers)
    html = page.get(f"/surveys/{survey.slug}/analysis/").content.decode()
    assert 'id="correlation-form"' in html and 'id="correlation-result"' not in html
    html = page.get(f"/surveys/{survey.slug}/analysis/?cor_x=coin&cor_y=hours").content.decode()
    body = correlation_body_of(survey, "coin", "hours")
    assert 'id="correlation-result"' in html and f"{body['estimate']:.3f}" in html
    r = page.get(f"/surveys/{survey.slug}/analysis/?cor_x=coin&cor_y=coin")
    assert r.status_code == 200 and "y:" in r.content.decode()
    from django.utils import translation

    with translation.override("es"):  # the panel's words are in the Spanish catalogue
        assert translation.gettext("Correlation") == "Correlación"
        assert translation.gettext("First question") == "Primera pregunta"


def correlation_body_of(survey, x, y):
    from surveys.analysis.correlation import correlation_body

    return correlation_body(survey, x=x, y=y, confidence=0.95)
