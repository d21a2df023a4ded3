"""A choice question under optimized unary encoding through the API (issue 26.1): its accounted ε,
strict reported bit vectors, estimates per option as k-RR's (n respondents, bit counts), one
export column per option, and bad designs and answers refused naming the field."""

from __future__ import annotations

import csv
import io
import math

import pytest

from dpcore.local.oue import estimate_oue, oue
from tests.surveys.api.support import open_survey, post_response, url

pytestmark = pytest.mark.django_db
LN3 = math.log(3)
OPTIONS = ["a", "b", "c", "d", "e"]
OUE = {"name": "oue", "epsilon": LN3}


def body(design=OUE, options=OPTIONS):
    return {
        "title": "Brands",
        "questions": [
            {"key": "brand", "text": "Brand?", "kind": "choice", "options": options,
             "design": design},
        ],
    }  # fmt: skip


def _entry(data):
    return next(q for q in data["questions"] if q["key"] == "brand")


def test_an_oue_question_is_stored_with_its_epsilon(api):
    r = api.post("/api/v1/surveys/", body(), format="json")
    assert r.status_code == 201, r.content
    q = _entry(r.json())
    assert q["kind"] == "choice" and q["design"]["name"] == "oue"
    # The whole bit vector is ε-LDP (not k·ε): ln(½·¾/(½·¼)) = ln 3, on two coins exactly.
    assert q["epsilon"] >= LN3 and q["epsilon"] == pytest.approx(LN3, rel=1e-15)
    assert r.json()["epsilon_local_total"] == pytest.approx(LN3, rel=1e-15)


@pytest.mark.parametrize(
    ("design", "field"),
    [
        ({"name": "oue", "epsilon": 11}, "design.epsilon"),
        ({"name": "oue", "epsilon": 0}, "design.epsilon"),
        ({"name": "oue", "epsilon": "x"}, "design.epsilon"),
        ({"name": "oue"}, "design.epsilon"),
        ({"name": "oue", "epsilon": 1, "p": 0.5}, "design.p"),
    ],
)
def test_bad_designs_are_400_naming_the_field(api, design, field):
    r = api.post("/api/v1/surveys/", body(design), format="json")
    assert r.status_code == 400, r.content
    assert f"questions[0].{field}" in r.json()["errors"], r.json()


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("a", "object"),
        ({"a": True}, "'b'"),
        ({**dict.fromkeys(OPTIONS, False), "z": True}, "'z'"),
        ({**dict.fromkeys(OPTIONS, False), "c": 1}, "boolean"),
    ],
)
def test_bad_answers_are_400_naming_the_field(api, anon, answer, words):
    survey = open_survey(api, body())
    r = post_response(anon, survey, {"brand": answer})
    assert r.status_code == 400, r.content
    assert words in " ".join(r.json()["errors"]["answers.brand"])


def test_estimates_per_option_and_the_export(api, anon):
    survey = open_survey(api, body())
    reports = [
        {"a": True, "b": False, "c": True, "d": False, "e": False},
        {"a": True, "b": False, "c": False, "d": False, "e": False},
        {"a": False, "b": False, "c": False, "d": False, "e": True},
        {"a": True, "b": True, "c": False, "d": False, "e": False},
    ]
    for report in reports:
        assert post_response(anon, survey, {"brand": report}).status_code == 201
    entry = _entry(api.get(url(survey, "estimates/")).json())
    assert entry["n"] == 4
    assert [o["option"] for o in entry["options"]] == OPTIONS
    core = estimate_oue(oue(5, LN3), n=4, counts=[3, 1, 1, 0, 1])
    for o, c in zip(entry["options"], core.options, strict=True):
        assert o["reported"] == c.reported
        assert o["estimate_unclipped"] == pytest.approx(c.estimate_unclipped)
        # (C/n − ¼)/(½ − ¼) by hand: a → (¾ − ¼)·4 = 2.
    assert entry["options"][0]["estimate_unclipped"] == pytest.approx(2.0)
    assert sum(o["estimate"] for o in entry["options"]) == pytest.approx(1.0)
    r = api.get(url(survey, "responses/export/"), {"format": "csv"})
    assert r.status_code == 200
    text = b"".join(r.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 4
    assert {f"brand.{o}" for o in OPTIONS} <= set(rows[0])
    assert sorted(sum(int(row[f"brand.{o}"]) for o in OPTIONS) for row in rows) == [1, 1, 2, 2]


def test_the_shuffled_file_keeps_the_option_bits_together_at_epsilon_once(api, anon):
    """The shuffled file (issue 27): an OUE question is one section whose report is its k bits
    (one column per option, kept together); its local ε is the design's ε once — the whole
    vector is ε-LDP — and, not being one k-ary randomized response, it gets the 2021 bound."""
    from django.urls import reverse

    from surveys.services import survey_close

    survey = open_survey(api, body())
    for i in range(4):
        report = {o: j == i % 5 for j, o in enumerate(OPTIONS)}
        assert post_response(anon, survey, {"brand": report}).status_code == 201
    survey_close(survey=survey)
    r = api.get(reverse("api-survey-export-shuffled", args=[survey.slug]) + "?format=json")
    assert r.status_code == 200, r.content
    out = r.json()
    (section,) = [q for q in out["questions"] if q["key"] == "brand"]
    assert section["columns"] == [f"brand.{o}" for o in OPTIONS] and section["n"] == 4
    (guarantee,) = [q for q in out["guarantee"]["questions"] if q["key"] == "brand"]
    assert guarantee["local_epsilon"] == pytest.approx(LN3, rel=1e-15)
    assert guarantee["n"] == 4 and guarantee["method"] == "clones-2021"
    for row in section["reports"]:  # each report is the k bits of one respondent
        assert len(row) == len(OPTIONS)


def test_the_design_preview_states_epsilon_and_per_option_precision(api):
    body = {"kind": "choice", "design": {"name": "oue", "epsilon": 1.0}, "k": 20, "planned_n": 1000}
    r = api.post("/api/v1/designs/preview/", body, format="json")
    assert r.status_code == 200, r.content
    out = r.json()
    assert out["private"] and out["epsilon"] <= 1.0 + 1e-15
    # One option's bit is a binary report with c = ½ − q, d = q: its worst-case half-width.
    q = 1 / (math.e + 1)
    assert out["planned_half_width"] == pytest.approx(
        1.959964 * 0.5 / (0.5 - q) / 1000**0.5, rel=1e-3
    )


def test_a_release_counts_each_options_bits_k_times(api, anon, django_capture_on_commit_callbacks):
    survey = open_survey(api, {**body(), "budget": {"epsilon": 5.0, "delta": 1e-6}})
    for i in range(6):
        report = {o: j == i % 5 for j, o in enumerate(OPTIONS)}
        assert post_response(anon, survey, {"brand": report}).status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(url(survey, "releases/"), {"mechanism": "laplace", "epsilon": 2.0}, "json")
    assert r.status_code == 202, r.content
    detail = api.get(r.json()["url"]).json()
    assert detail["status"] == "done", detail
    [entry] = detail["results"]["questions"]
    assert entry["key"] == "brand"
    # One (set, not set) histogram per option: k contributions of Δ = 1, as multi's.
    assert entry["contributions"] == len(OPTIONS)
    assert set(entry["noisy_counts"]) == set(OPTIONS)
    assert all(set(cell) == {"yes", "no"} for cell in entry["noisy_counts"].values())
    assert [o["option"] for o in entry["options"]] == OPTIONS
