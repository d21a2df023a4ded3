"""Optional questions, skip logic and ordered choice downstream (docs/analysis.md#missing-answers):
n per question in the estimates and every group_by slice, the mean score in the JSON and the CSV,
empty (NA) export cells, and releases' per-question noisy totals."""

from __future__ import annotations

import csv
import io
import math

import pytest

from deniable.renderers import csv_text
from dpcore.local.designs import KRRDesign
from dpcore.local.ordinal import estimate_mean_score
from surveys.analysis.export import export_csv
from surveys.api.estimates import estimates_body, estimates_table
from testsupport import factories

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"key": "age", "text": "Age group?", "kind": "category", "options": ["young", "old"]},
    {
        "key": "kids",
        "text": "Children?",
        "kind": "number",
        "min": 0,
        "max": 10,
        "show_if": {"key": "age", "in": ["old"]},
    },
    {"key": "use", "text": "Used?", "kind": "yes_no", "required": False},
    {
        "key": "mood",
        "text": "How often?",
        "kind": "choice",
        "options": ["never", "sometimes", "often"],
        "design": {"name": "k_rr", "epsilon": math.log(3)},
        "ordered": True,
    },
]


def _answers(i: int) -> dict:
    """12 respondents: 6 old (kids answered), 6 young; `use` left out by every third."""
    a = {"age": "old" if i % 2 else "young", "mood": ["never", "sometimes", "often"][i % 3]}
    if i % 2:
        a["kids"] = i % 4
    if i % 3:
        a["use"] = i % 2 == 0
    return a


@pytest.fixture
def survey(alice, settings):
    settings.DENIABLE_MAX_BUDGET_EPSILON = 100.0  # a release at ε = 50 below
    survey = factories.make_survey(
        alice, {"title": "Q", "questions": QUESTIONS, "budget": {"epsilon": 100.0}}
    )
    factories.submit_many(survey, 12, _answers)
    return factories.reload(survey)


def test_n_per_question_and_per_group(survey):
    body = estimates_body(survey=survey)
    by_key = {q["key"]: q for q in body["questions"]}
    assert body["respondents"] == 12
    assert by_key["age"]["n"] == 12 and by_key["mood"]["n"] == 12
    assert by_key["kids"]["n"] == 6  # shown to "old" only, all of whom answered
    assert by_key["use"]["n"] == 8  # left out by i = 0, 3, 6, 9
    grouped = estimates_body(survey=survey, group_by="age")
    groups = {g["group"]: {q["key"]: q for q in g["questions"]} for g in grouped["groups"]}
    assert groups["young"]["kids"]["n"] == 0 and groups["old"]["kids"]["n"] == 6
    assert groups["young"]["use"]["n"] + groups["old"]["use"]["n"] == 8
    assert "mean_score" not in by_key["use"] and "mean_score" not in by_key["age"]


def test_mean_score_in_json_and_csv(survey):
    body = estimates_body(survey=survey, confidence=0.9)
    mood = next(q for q in body["questions"] if q["key"] == "mood")
    counts = [o["reported"] for o in mood["options"]]
    assert counts == [4, 4, 4]
    ref = estimate_mean_score(KRRDesign(3, math.log(3)), counts=counts, confidence=0.9)
    score = mood["mean_score"]
    assert score["min"] == 1 and score["max"] == 3
    assert score["estimate"] == pytest.approx(ref.estimate)
    assert score["std_error"] == pytest.approx(ref.std_error)
    assert score["ci_low"] == pytest.approx(ref.ci_low)
    rows = list(csv.DictReader(io.StringIO(csv_text(estimates_table(body)), newline="")))
    (row,) = [r for r in rows if r["option"] == "'mean_score"]
    assert row["key"] == "'mood" and float(row["estimate"]) == pytest.approx(ref.estimate)
    assert float(row["ci_high"]) == pytest.approx(ref.ci_high)


def test_export_cells_of_left_out_and_hidden_answers_are_empty(survey):
    text = "".join(export_csv(survey))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 12
    assert sum(r["kids"] == "" for r in rows) == 6 and sum(r["use"] == "" for r in rows) == 4
    young = [r for r in rows if r["age"] == "'young"]
    assert all(r["kids"] == "" for r in young)


def test_release_counts_n_per_question(survey, alice):
    release = factories.make_release(
        survey, alice, {"mechanism": "laplace", "epsilon": 50.0, "questions": ["kids", "use"]}
    )
    assert release.status == "done", release.error if hasattr(release, "error") else ""
    results = {q["key"]: q for q in release.results["questions"]}
    # ε = 50: the noise is a few units at most; the totals are n per question, not 12
    assert abs(results["use"]["noisy_total"] - 8) <= 3
    assert abs(results["kids"]["noisy_count"] - 6) <= 3


def test_export_metadata_says_why_a_cell_may_be_empty(survey):
    from surveys.analysis.export import export_metadata

    columns = {c["key"]: c for c in export_metadata(survey)["columns"]}
    assert columns["kids"]["show_if"] == {"key": "age", "in": ["old"]}
    assert columns["use"]["required"] is False and columns["age"]["required"] is True
    assert columns["mood"]["ordered"] is True and "ordered" not in columns["age"]


def test_release_preview_assumes_n_per_question(survey):
    preview = factories.release_preview(survey=survey, data={"mechanism": "laplace", "epsilon": 1})
    assumed = {q["key"]: q["respondents_assumed"] for q in preview["questions"]}
    assert assumed == {"age": 12, "kids": 6, "use": 8, "mood": 12}
    data = {"mechanism": "laplace", "epsilon": 1, "group_by": "age"}
    grouped = factories.release_preview(survey=survey, data=data)
    assert {q["key"]: q["respondents_assumed"] for q in grouped["questions"]}["kids"] == 3
