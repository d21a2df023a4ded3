"""The unrelated question with an unknown innocuous prevalence (RRreg's ``UQTunknown``) through
the API: a survey with the design, reports {group, report} in both groups, the estimate of π
against the closed form and the core, the ε with its assumption, the builder's preview and the
refusals. Expected numbers are derived here from the model
(docs/formulas.md#unrelated-question-unknown)."""

from __future__ import annotations

import math

import pytest

from dpcore.local.designs.unrelated_question_unknown import (
    estimate_unrelated_question_unknown,
    unrelated_question_unknown,
)
from surveys.kinds.registry import kind_of
from surveys.selectors.estimates import survey_estimates
from tests.surveys.api.support import API, open_survey, post_response, url

pytestmark = pytest.mark.django_db

# Group 1 asks the sensitive question with p₁ = ½, group 2 with p₂ = 1/10; the innocuous "yes"
# share is stated to lie in [0.4, 0.6].
DESIGN = {
    "name": "unrelated_question_unknown",
    "groups": [{"p": 0.5}, {"p": 0.1}],
    "innocuous_text": "I was born in the first half of the year.",
    "innocuous_prevalence_min": 0.4,
    "innocuous_prevalence_max": 0.6,
}
BODY = {
    "title": "Unknown-prevalence unrelated question",
    "questions": [
        {"key": "uq", "text": "I have taken a bribe.", "kind": "yes_no", "design": DESIGN}
    ],
}


def test_a_survey_with_the_design_estimates_pi_from_both_groups(api, anon):
    survey = open_survey(api, BODY)
    # Group 1: 12 of 20 report yes; group 2: 7 of 20.
    counts = {1: (20, 12), 2: (20, 7)}
    for group, (n, yes) in counts.items():
        for i in range(n):
            r = post_response(anon, survey, {"uq": {"group": group, "report": i < yes}})
            assert r.status_code in (200, 201), r.content
    body = api.get(url(survey, "estimates/")).json()
    entry = next(q for q in body["questions"] if q["key"] == "uq")
    assert (entry["n"], entry["reported_yes"]) == (40, 19)
    # π̂ = ((1 − p₂)λ̂₁ − (1 − p₁)λ̂₂)/(p₁ − p₂) = (0.9·0.6 − 0.5·0.35)/0.4 = 0.9125;
    # Var = [(1 − p₂)²λ̂₁(1 − λ̂₁)/n₁ + (1 − p₁)²λ̂₂(1 − λ̂₂)/n₂]/(p₁ − p₂)² (n₁, n₂ as drawn).
    assert entry["estimate_unclipped"] == pytest.approx(0.9125)
    var = (0.81 * 0.6 * 0.4 / 20 + 0.25 * 0.35 * 0.65 / 20) / 0.16
    assert entry["std_error"] == pytest.approx(math.sqrt(var))
    core = estimate_unrelated_question_unknown(
        unrelated_question_unknown([0.5, 0.1], "x", (0.4, 0.6)), n=[20, 20], reported_yes=[12, 7]
    )
    assert entry["estimate"] == pytest.approx(core.prevalence.estimate)
    assert entry["ci_low"] <= entry["estimate"] <= entry["ci_high"]
    # ε: the larger group's, at the worst prevalence in the bounds — group 1, a YES at u = 0.4:
    # ln((½ + ½·0.4)/(½·0.4)) = ln 3.5 (the page's thresholds 2⁵² and T(0.1) realise no more).
    assert entry["epsilon"] == pytest.approx(math.log(3.5), abs=1e-12)
    assert entry["epsilon"] >= math.log(3.5)
    assert len(entry["design"]["group_epsilons"]) == 2


def test_the_innocuous_prevalence_is_on_the_results_rows(api, anon):
    survey = open_survey(api, BODY)
    for group, report in ((1, True), (1, False), (2, True), (2, False), (2, False)):
        post_response(anon, survey, {"uq": {"group": group, "report": report}})
    question = survey.questions.get(key="uq")
    estimate = next(e for e in survey_estimates(survey=survey).questions if e.key == "uq")
    rows = kind_of(question).chart_rows(estimate, {"key": "uq"})
    # λ̂₁ = ½, λ̂₂ = ⅓: û = (p₂λ̂₁ − p₁λ̂₂)/(p₂ − p₁) = (0.05 − 1/6)/(−0.4) = 7/24, and
    # π̂ = (0.9·½ − 0.5·⅓)/0.4 = 17/24 (both inside [0, 1]: the moment estimates are reported).
    assert [r["label"] for r in rows] == [
        "has the trait (estimated prevalence)",
        "other question: yes (estimated prevalence)",
    ]
    assert rows[0]["estimate"] == pytest.approx(17 / 24)
    assert rows[1]["estimate"] == pytest.approx(7 / 24)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"groups": [{"p": 0.5}]}, "groups"),
        ({"groups": [{"p": 0.3}, {"p": 0.3}]}, "groups"),
        ({"innocuous_prevalence_min": 0.0}, "innocuous_prevalence_min"),
        ({"innocuous_prevalence_max": 1.0}, "innocuous_prevalence_max"),
        ({"innocuous_text": ""}, "innocuous_text"),
    ],
)
def test_bad_specs_are_400_naming_the_field(api, change, field):
    body = {"title": "x", "questions": [{**BODY["questions"][0], "design": {**DESIGN, **change}}]}
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400, r.content
    assert any(field in path for path in r.json()["errors"]), r.json()


@pytest.mark.parametrize("answer", [True, {"group": 3, "report": True}, {"group": 1}])
def test_bad_answers_are_400(api, anon, answer):
    survey = open_survey(api, BODY)
    r = post_response(anon, survey, {"uq": answer})
    assert r.status_code == 400, r.content
    assert "answers.uq" in r.json()["errors"]


def test_the_preview_states_the_group_epsilons_and_the_assumption(api):
    r = api.post(f"{API}/designs/preview/", {"kind": "yes_no", "design": DESIGN}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["epsilon"] == pytest.approx(math.log(3.5)) and body["private"] is True
    assert "cannot find out your answer" in body["assumption"]
    # Planned half-width at π = 0.1 (the default prior), u = ½ (the bounds' midpoint), 500 per
    # group: λ₁ = 0.3, λ₂ = 0.46; Var·n = (0.81·0.21 + 0.25·0.2484)/0.16.
    unit = (0.81 * 0.3 * 0.7 + 0.25 * 0.46 * 0.54) / 0.16
    assert body["planned_half_width"] == pytest.approx(1.959963984540054 * math.sqrt(unit / 500))


def test_breakdowns_comparisons_and_fit_do_not_borrow_cheater_detections_model(api, anon):
    """Seam: the kind reuses cheater detection's two-group parts, but not its model — a grouped,
    compared breakdown must not run cheater detection's π/γ comparison or its G² (a 500 or a
    wrong test); the design has neither (yet), so both are null."""
    body = {
        **BODY,
        "questions": [
            *BODY["questions"],
            {"key": "region", "text": "Region?", "kind": "category", "options": ["N", "S"]},
        ],
    }
    survey = open_survey(api, body)
    for i in range(40):
        answers = {"uq": {"group": 1 + i % 2, "report": i % 3 == 0}, "region": "NS"[i % 2]}
        assert post_response(anon, survey, answers).status_code in (200, 201)
    whole = api.get(url(survey, "estimates/")).json()
    assert next(q for q in whole["questions"] if q["key"] == "uq")["fit"] is None
    r = api.get(url(survey, "estimates/") + "?group_by=region&compare=true")
    assert r.status_code == 200, r.content
    for group in r.json()["groups"]:
        entry = next(q for q in group["questions"] if q["key"] == "uq")
        assert entry["fit"] is None
