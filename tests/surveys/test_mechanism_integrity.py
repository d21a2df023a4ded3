"""Issue 11 §3 end to end on the server: designs the page cannot run exactly are refused at
validation, the page's question data carries the integer thresholds the browser uses unchanged,
and designs stored before these checks neither 500 the page nor print empty instructions."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from dpcore.local import browser as rr_browser
from surveys.definitions import question_designs as designs
from surveys.models import Question
from surveys.pages.forms import physical_protocol
from surveys.services import survey_open
from testsupport.factories import survey_create

pytestmark = pytest.mark.django_db


def _question(design: dict[str, Any] | None, kind: str = "yes_no", **extra: Any) -> dict:
    q: dict[str, Any] = {"key": "q", "text": "Sensitive?", "kind": kind, **extra}
    if design is not None:
        q["design"] = design
    return q


REFUSED = [
    # (design, kind, options, field): the reproductions, each accepted before.
    ({"name": "forced_response", "p_truth": 0.5 - 1e-11, "p_yes": 1e-11, "p_no": 0.5}, "p_yes"),
    ({"name": "warner", "p": 0.99999999999}, "p"),
    ({"name": "k_rr", "epsilon": 30}, "epsilon"),
    ({"name": "k_rr", "epsilon": 1000}, "epsilon"),
    (
        {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 1e-9},
        "innocuous_prevalence",
    ),
]


@pytest.mark.parametrize(("design", "field"), REFUSED)
def test_unrunnable_designs_are_refused_naming_the_field(api, design, field) -> None:
    kind = "choice" if design["name"] == "k_rr" else "yes_no"
    options = {"options": ["a", "b"]} if kind == "choice" else {}
    response = api.post(
        "/api/v1/surveys/",
        {"title": "T", "questions": [_question(design, kind, **options)]},
        format="json",
    )
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert list(errors) == [f"questions[0].design.{field}"], errors
    assert "at most 10" in " ".join(errors[f"questions[0].design.{field}"])


def test_cap_boundary_is_accepted(api) -> None:
    body = {
        "title": "T",
        "questions": [_question({"name": "k_rr", "epsilon": 10}, "choice", options=["a", "b"])],
    }
    assert api.post("/api/v1/surveys/", body, format="json").status_code == 201


def _page_data(client: Client, slug: str) -> dict[str, Any]:
    response = client.get(reverse("respond", args=[slug]))
    assert response.status_code == 200
    html = response.content.decode()
    match = re.search(
        r'<script id="survey-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, html[:500]
    return json.loads(match.group(1))


def test_page_data_carries_the_thresholds(client, alice) -> None:
    questions = [
        {"key": "coin", "text": "Coin?", "kind": "yes_no"},
        {"key": "w", "text": "W?", "kind": "yes_no", "design": {"name": "warner", "p": 0.7}},
        {
            "key": "u",
            "text": "U?",
            "kind": "yes_no",
            "design": {"name": "unrelated_question", "p": 0.6, "innocuous_prevalence": 0.3},
        },
        {
            "key": "k",
            "text": "K?",
            "kind": "choice",
            "options": ["a", "b", "c"],
            "design": {"name": "k_rr", "epsilon": 2},
        },
        {"key": "n", "text": "N?", "kind": "number", "min": 0, "max": 10},
    ]
    survey = survey_open(
        survey=survey_create(owner=alice, data={"title": "T", "questions": questions})
    )
    data = _page_data(client, survey.slug)
    by_key = {q["key"]: q for q in data["questions"]}
    assert by_key["coin"]["thresholds"] == {"truth": 2**52, "yes": 3 * 2**51}
    assert by_key["coin"]["random_bits"] == 53
    for q in survey.questions.all():
        item = by_key[q.key]
        if not q.is_randomized:
            assert "thresholds" not in item
            continue
        plan = rr_browser.browser_plan(designs.question_design(q))
        assert item["thresholds"] == plan.thresholds
        assert all(isinstance(t, int) and 0 < t < 2**53 for t in item["thresholds"].values())
        assert item["epsilon"] >= plan.epsilon  # reported ≥ realised
    assert by_key["k"]["epsilon"] == 2.0  # nudged thresholds: the ε asked for is the ε run


def _legacy_survey(alice, design: dict[str, Any], kind: str = "yes_no", options=None):
    """A survey whose design was stored before the checks existed (written past the service)."""
    survey = survey_open(
        survey=survey_create(
            owner=alice,
            data={
                "title": "Old",
                "questions": [
                    _question(None, kind, options=options or [])
                    if kind == "choice"
                    else _question(None)
                ],
            },
        )
    )
    Question.objects.filter(survey=survey).update(design=design)
    return survey


def test_legacy_huge_epsilon_krr_page_does_not_500(client, alice) -> None:
    survey = _legacy_survey(alice, {"name": "k_rr", "epsilon": 1000}, "choice", ["a", "b"])
    response = client.get(reverse("respond", args=[survey.slug]))
    assert response.status_code == 200
    assert "cannot run exactly" in response.content.decode()
    assert 'id="survey-data"' not in response.content.decode()  # nothing for respond.js to run


def test_legacy_tiny_probability_has_no_empty_instructions(alice) -> None:
    survey = _legacy_survey(
        alice, {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.5 - 1e-13, "p_no": 1e-13}
    )
    protocol = physical_protocol(survey.questions.get())
    # Before: the 1e-13 outcome was dropped and a coin "realised" the rest (ε = ∞ → ε ≈ 30).
    assert protocol.possible is False and "needs JavaScript" in protocol.reason


def test_physical_instructions_cover_every_outcome(alice) -> None:
    design = {"name": "forced_response", "p_truth": 4 / 6, "p_yes": 1 / 6, "p_no": 1 / 6}
    survey = survey_create(owner=alice, data={"title": "T", "questions": [_question(design)]})
    protocol = physical_protocol(survey.questions.get())
    assert protocol.possible
    assert protocol.steps == [
        "Roll a die. Do it where nobody can see.",
        "1–4: answer truthfully (tick your true answer).",
        "5: tick YES, whatever your true answer.",
        "6: tick NO, whatever your true answer.",
    ]
