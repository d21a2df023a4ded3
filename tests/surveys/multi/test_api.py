"""The randomized multi-select kind through the API (issue 16): the question's shape and design,
ε summed over the options, strict reported answers, estimates per option debiased like yes/no
(checked against the truth of seeded simulated respondents), comparisons and regression."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from django.test import override_settings

from dpcore import local as rr
from tests.surveys.multi.support import (
    BODY,
    COIN,
    OPTIONS,
    all_false,
    open_survey,
    submit_answer,
    url,
)

pytestmark = pytest.mark.django_db
LN3 = math.log(3)


def _entry(body, key="drugs"):
    return next(q for q in body["questions"] if q["key"] == key)


def test_default_design_and_epsilon_summed_over_options(api):
    r = api.post("/api/v1/surveys/", BODY, format="json")
    assert r.status_code == 201, r.content
    q = _entry(r.json())
    assert q["kind"] == "multi" and q["options"] == OPTIONS
    assert q["design"]["name"] == "forced_response"
    # Three independent coin reports of one person: ε = 3 · ln 3 (sequential composition).
    assert q["epsilon"] == pytest.approx(3 * LN3, rel=1e-12)
    assert q["epsilon"] >= 3 * LN3
    assert r.json()["epsilon_local_total"] == pytest.approx(3 * LN3, rel=1e-12)


@pytest.mark.parametrize(
    ("design", "per_option"),
    [
        ({"name": "warner", "p": 0.75}, LN3),
        ({"name": "unrelated_question", "p": 0.75, "innocuous_prevalence": 0.5}, math.log(7)),
        ({"name": "two_probability", "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25}, LN3),
        (COIN, LN3),
    ],
)
def test_shared_yes_no_designs(api, design, per_option):
    body = {**BODY, "questions": [{**BODY["questions"][0], "design": design}]}
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 201, r.content
    q = _entry(r.json())
    assert q["design"]["name"] == design["name"]
    assert q["epsilon"] == pytest.approx(3 * per_option, rel=1e-9)
    assert q["epsilon"] >= 3 * per_option * (1 - 1e-15)


@pytest.mark.parametrize(
    ("question", "field", "words"),
    [
        ({"design": {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "x"}},
         "design.name", "crosswise"),
        ({"design": {"name": "cheater_detection",
                     "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]}},
         "design.name", "cheater_detection"),
        ({"design": {"name": "k_rr", "epsilon": 1.0}}, "design.name", "forced_response"),
        ({"design": {"name": "forced_response", "p_truth": 1.0, "p_yes": 0.0, "p_no": 0.0}},
         "design", ""),
        ({"designs": {"cannabis": COIN}}, "designs", "Per-option designs"),
        ({"options": []}, "options", ""),
        ({"options": ["a"]}, "options", ""),
        ({"options": ["a", "a"]}, "options", "unique"),
    ],
)  # fmt: skip
def test_bad_multi_questions_are_400_naming_the_field(api, question, field, words):
    body = {"title": "x", "questions": [{**BODY["questions"][0], **question}]}
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    path = f"questions[0].{field}"
    assert path in errors, errors
    assert words in " ".join(errors[path])


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (True, "object"),
        (["cannabis"], "object"),
        ({"cannabis": True, "cocaine": False}, "'ecstasy'"),
        ({**dict.fromkeys(OPTIONS, False), "heroin": True}, "'heroin'"),
        ({**dict.fromkeys(OPTIONS, False), "cocaine": "yes"}, "'cocaine'"),
        ({**dict.fromkeys(OPTIONS, False), "cocaine": 1}, "boolean"),
        ({}, "Missing"),
    ],
)
def test_bad_answers_are_400_naming_the_field(api, anon, answer, words):
    survey = open_survey(api)
    r = submit_answer(anon, survey, answer)
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert "answers.drugs" in errors, errors
    assert words in " ".join(errors["answers.drugs"])


def test_missing_multi_answer_is_400(api, anon):
    survey = open_survey(api)
    body = {"submission_id": str(uuid.uuid4()), "randomizer": "browser", "answers": {"age": "old"}}
    r = anon.post(url(survey, "responses/"), body, format="json")
    assert r.status_code == 400 and "answers.drugs" in r.json()["errors"]


def test_counts_and_debiased_estimates_per_option(api, anon):
    survey = open_survey(api)
    answers = [
        {"cannabis": True, "cocaine": False, "ecstasy": True},
        {"cannabis": True, "cocaine": False, "ecstasy": False},
        {"cannabis": False, "cocaine": False, "ecstasy": False},
        {"cannabis": True, "cocaine": True, "ecstasy": False},
    ]
    for a in answers:
        assert submit_answer(anon, survey, a).status_code == 201
    body = api.get(url(survey, "estimates/")).json()
    entry = _entry(body)
    assert entry["n"] == 4
    assert entry["epsilon"] == pytest.approx(3 * LN3, rel=1e-12)
    assert entry["epsilon_per_option"] == pytest.approx(LN3, rel=1e-12)
    assert body["epsilon_local_total"] == pytest.approx(3 * LN3, rel=1e-12)
    design = rr.design_from_spec(COIN)
    by_option = {o["option"]: o for o in entry["options"]}
    assert [o["option"] for o in entry["options"]] == OPTIONS
    for option, yes in (("cannabis", 3), ("cocaine", 1), ("ecstasy", 1)):
        o = by_option[option]
        core = rr.estimate_binary(design, n=4, reported_yes=yes)
        assert (o["n"], o["reported"]) == (4, yes)
        assert o["reported_rate"] == pytest.approx(yes / 4)
        # (λ̂ − d)/c with c = ½, d = ¼ for the coin design.
        assert o["estimate_unclipped"] == pytest.approx((yes / 4 - 0.25) / 0.5)
        assert o["std_error"] == pytest.approx(core.std_error)
        assert o["ci_low"] == pytest.approx(core.ci_low)


def test_estimates_csv_has_a_row_per_option(api, anon):
    import csv
    import io

    survey = open_survey(api)
    assert submit_answer(anon, survey, {**all_false(), "cocaine": True}).status_code == 201
    r = api.get(url(survey, "estimates/?format=csv"))
    assert r.status_code == 200
    rows = [
        row for row in csv.DictReader(io.StringIO(r.content.decode())) if row["key"] == "'drugs"
    ]
    assert [row["option"] for row in rows] == [f"'{o}" for o in OPTIONS]
    assert [row["reported"] for row in rows] == ["0", "1", "0"]


# Batches of 10, the production default k: every submission still goes the real way, and its
# batch is published ten at a time (the test settings' k = 1 sealed a batch per respondent,
# most of this test's time). The respondent count below is a multiple of 10: all published.
@override_settings(DENIABLE_ESTIMATE_BATCH=10)
def test_simulated_respondents_are_debiased_per_option(api):
    """n = 600 respondents with true prevalences (0.1, 0.4, 0.7), each option randomized
    independently by the coin design (truth ½, yes ¼, no ¼). λ = ½π + ¼; SE(π̂) = √(λ(1−λ)/n)/½
    ≤ 0.041 at n = 600. Tolerance 5 SE: a false failure below 10⁻⁵ per option."""
    from surveys.collection import simulation
    from testsupport import factories as boundary

    survey = open_survey(api)
    rng = np.random.default_rng(20261122)
    truth = {"cannabis": 0.1, "cocaine": 0.4, "ecstasy": 0.7}
    n = 600
    for i in range(n):
        truths = {option: bool(rng.random() < pi) for option, pi in truth.items()}
        report = simulation.randomize_multi(COIN, truths, rng)
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={"drugs": report, "age": "young" if i % 2 else "old"},
        )
    entry = _entry(api.get(url(survey, "estimates/")).json())
    assert entry["n"] == n
    for o in entry["options"]:
        assert abs(o["estimate"] - truth[o["option"]]) < 5 * 0.041, o
        assert o["ci_low"] <= o["estimate"] <= o["ci_high"]
    grouped = api.get(url(survey, "estimates/?group_by=age&compare=true")).json()
    per_age = {g["group"]: _entry(g) for g in grouped["groups"]}
    assert per_age["young"]["n"] + per_age["old"]["n"] == n
    for option_index in range(3):
        assert (
            sum(e["options"][option_index]["reported"] for e in per_age.values())
            == (entry["options"][option_index]["reported"])
        )
    comparison = _entry(grouped)["comparison"]
    assert comparison["test"] == "equal_prevalence_per_option"
    assert [t["option"] for t in comparison["tests"]] == OPTIONS
    assert {d["option"] for d in comparison["differences"]} == set(OPTIONS)
    for t in comparison["tests"]:
        assert 0 <= t["p_value"] <= 1


def test_regression_outcome_multi_is_refused_with_400(api, anon):
    survey = open_survey(api)
    r = api.get(url(survey, "regression/?outcome=drugs&predictors=age"))
    assert r.status_code == 400, r.content
    assert "multi" in " ".join(r.json()["errors"]["outcome"])


def test_design_preview_sums_epsilon_over_the_options(api):
    r = api.post(
        "/api/v1/designs/preview/",
        {"kind": "multi", "options": OPTIONS, "design": COIN},
        format="json",
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["epsilon_per_option"] == pytest.approx(LN3, rel=1e-12)
    assert body["options"] == 3
    assert body["epsilon"] == pytest.approx(3 * LN3, rel=1e-12)
    refused = api.post(
        "/api/v1/designs/preview/",
        {
            "kind": "multi",
            "k": 2,
            "design": {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "x"},
        },
        format="json",
    )
    assert refused.status_code == 400 and "design.name" in refused.json()["errors"]
    missing = api.post("/api/v1/designs/preview/", {"kind": "multi", "design": COIN}, format="json")
    assert missing.status_code == 400 and "options" in missing.json()["errors"]


def test_one_list_of_randomized_kinds():
    """surveys.definitions.question_designs keeps its own tuple (no model import); it must match the
    model's, or a
    kind the model calls randomized would get no design (the bug issue 16 found for multi)."""
    from surveys.definitions import question_designs as designs
    from surveys.inputs.design_specs import DESIGN_NAMES
    from surveys.models import Question

    assert tuple(designs.RANDOMIZED_KINDS) == tuple(Question.RANDOMIZED_KINDS)
    assert set(DESIGN_NAMES) == set(Question.RANDOMIZED_KINDS)
    assert all(designs.default_design_spec(kind) for kind in Question.RANDOMIZED_KINDS)
