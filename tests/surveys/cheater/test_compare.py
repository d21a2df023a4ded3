"""Cheating detection compared across groups (issue 26.5, docs/analysis.md#comparisons): π and γ
per group and the Wald test of equality (χ² on G − 1 df) for each, against an independent
computation — each group's estimate from the core, the Wald statistic of the G − 1 contrasts in
matrix form, scipy's χ² tail — and on the results page."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from scipy import stats

from dpcore.local.cheater import cheater_detection, estimate_cheater_detection
from dpcore.local.compare import estimate_differences, wald_equality
from tests.surveys.api.support import open_survey
from tests.surveys.cheater.support import GROUPS, url
from testsupport import factories

pytestmark = pytest.mark.django_db

BODY = {
    "title": "Cheating by age",
    "questions": [
        {
            "key": "cdm",
            "text": "I have taken a bribe.",
            "kind": "yes_no",
            "design": {"name": "cheater_detection", "groups": GROUPS},
        },
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "mid", "old"]},
    ],
}
#: Per age: (yes, n) in device group 1 and in device group 2 (all inside the simplex or not: the
#: comparison uses the unbiased moment estimates either way).
COUNTS = {"young": ((8, 20), (11, 20)), "mid": ((12, 25), (18, 24)), "old": ((5, 22), (9, 21))}


def _matrix_wald(values: list[float], ses: list[float]) -> tuple[float, float]:
    """W = (Cθ)ᵀ(C·V·Cᵀ)⁻¹(Cθ) with C the contrasts θ_g − θ_1 (g ≥ 2); scipy's χ² tail."""
    theta, v = np.array(values), np.diag(np.array(ses) ** 2)
    c = np.hstack([-np.ones((len(values) - 1, 1)), np.eye(len(values) - 1)])
    d = c @ theta
    w = float(d @ np.linalg.solve(c @ v @ c.T, d))
    return w, float(stats.chi2.sf(w, len(values) - 1))


def test_wald_equality_equals_the_contrast_form():
    values, ses = [0.3, 0.45, 0.1, 0.2], [0.05, 0.1, 0.08, 0.2]
    test = wald_equality(list(zip(values, ses, strict=True)))
    w, p = _matrix_wald(values, ses)
    assert test.statistic == pytest.approx(w, rel=1e-12) and test.df == 3
    assert test.p_value == pytest.approx(p, rel=1e-9)
    assert wald_equality([(0.3, 0.05), (None, None), (0.2, 0.0)]).statistic is None
    ref, diffs = estimate_differences(
        [("a", None, None), ("b", 0.3, 0.1), ("c", 0.1, 0.1)], confidence=0.95
    )
    assert ref == "b" and diffs[0].group == "a" and diffs[0].difference is None
    assert diffs[1].difference == pytest.approx(-0.2)
    assert diffs[1].p_value == pytest.approx(2 * stats.norm.sf(0.2 / np.hypot(0.1, 0.1)))


def test_api_compares_pi_and_gamma_across_groups(api, client):
    survey = open_survey(api, BODY)
    for age, groups in COUNTS.items():
        for group, (yes, n) in enumerate(groups, start=1):
            for i in range(n):
                factories.submission_create(
                    survey=survey,
                    submission_id=str(uuid.uuid4()),
                    randomizer="browser",
                    answers={"cdm": {"group": group, "report": i < yes}, "age": age},
                )
    body = api.get(url(survey, "estimates/?group_by=age&compare=true")).json()
    entry = next(q for q in body["questions"] if q["key"] == "cdm")
    comparison = entry["comparison"]
    assert comparison["test"] == "equal_parameters_wald" and comparison["reference"] == "young"
    design = cheater_detection(GROUPS)
    core = {
        age: estimate_cheater_detection(
            design, n=[g[1] for g in groups], reported_yes=[g[0] for g in groups]
        )
        for age, groups in COUNTS.items()
    }
    for test in comparison["tests"]:
        name = test["parameter"]
        params = [getattr(core[age], name) for age in COUNTS]
        w, p = _matrix_wald([x.estimate_unclipped for x in params], [x.std_error for x in params])
        assert test["statistic"] == pytest.approx(w, rel=1e-9) and test["df"] == 2
        assert test["p_value"] == pytest.approx(p, rel=1e-9)
        rows = [d for d in comparison["differences"] if d["parameter"] == name]
        assert [d["group"] for d in rows] == ["mid", "old"]
        diff = params[1].estimate_unclipped - params[0].estimate_unclipped
        assert rows[0]["difference"] == pytest.approx(diff, rel=1e-9)
        se = np.hypot(params[1].std_error, params[0].std_error)
        assert rows[0]["std_error"] == pytest.approx(se, rel=1e-9)
    assert {t["parameter"] for t in comparison["tests"]} == {"honest_yes", "cheaters"}
    # Each group's π and γ are in the grouped body (per-group estimates, as before).
    young = next(g for g in body["groups"] if g["group"] == "young")["questions"]
    cdm_young = next(q for q in young if q["key"] == "cdm")
    assert cdm_young["cheaters"]["estimate_unclipped"] == pytest.approx(
        core["young"].cheaters.estimate_unclipped
    )
    client.force_login(survey.owner)
    html = client.get(f"/surveys/{survey.slug}/results/?group_by=age").content.decode()
    assert "Wald test of equality: χ² = " in html and "cheaters (γ)" in html
    assert '<th scope="col">Parameter</th>' in html


def _wald_rejections(pis: list[float], gamma: float, reps: int, seed: int) -> tuple[float, float]:
    """Rejection rates at 5% of the Wald tests for π and for γ over simulated groups (300
    reports per device group)."""
    design = cheater_detection(GROUPS)
    rng = np.random.default_rng(seed)
    hits = np.zeros(2)
    for _ in range(reps):
        estimates = []
        for pi in pis:
            lam = design.report_probabilities(pi, gamma)
            yes = [int(rng.binomial(300, x)) for x in lam]
            estimates.append(estimate_cheater_detection(design, n=[300, 300], reported_yes=yes))
        for j, name in enumerate(("honest_yes", "cheaters")):
            params = [getattr(e, name) for e in estimates]
            test = wald_equality([(x.estimate_unclipped, x.std_error) for x in params])
            hits[j] += test.p_value is not None and test.p_value < 0.05
    return float(hits[0] / reps), float(hits[1] / reps)


def test_wald_holds_its_size_and_rejects_different_groups():
    """Equal π = 0.3, γ = 0.1 in 3 groups: each test rejects at 5% with rate 0.05 ± 5 SE
    (1 000 reps: SE = √(0.05·0.95/1000) = 0.0069, 5 SE = 0.034). π = 0.05, 0.35, 0.65: SE of
    π̂ ≈ 0.085 per group ((A⁻¹)₀ = (8/3, −4/3), λ(1 − λ) ≤ ¼, n = 300), so the extremes differ
    by 0.6/(0.085·√2) ≈ 5 SE and the power is ≈ 0.99; > 0.9 required (200 reps: missing it at
    a true 0.99 has p < 1e-6)."""
    size_pi, size_gamma = _wald_rejections([0.3, 0.3, 0.3], 0.1, 1000, seed=5)
    assert abs(size_pi - 0.05) < 0.034 and abs(size_gamma - 0.05) < 0.034
    power_pi, _ = _wald_rejections([0.05, 0.35, 0.65], 0.1, 200, seed=6)
    assert power_pi > 0.9
