"""Management commands: seed_demo (createresearcher: tests/accounts/test_commands.py)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from surveys import selectors
from surveys.api.estimates import estimates_body
from surveys.management.commands import seed_demo
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db


def test_seed_demo_is_idempotent_and_has_every_kind():
    out = io.StringIO()
    call_command("seed_demo", "--respondents", "60", stdout=out)
    text = out.getvalue()
    assert seed_demo.DEMO_PASSWORD in text and "/s/demo/" in text
    survey = Survey.objects.get(slug="demo")
    assert survey.status == "open" and survey.owner.username == "demo"
    kinds = sorted(survey.questions.values_list("kind", flat=True))
    # The original five kinds, then the questions of issues 15 and 16 appended at the end.
    assert kinds == sorted(
        ["yes_no", "yes_no", "choice", "category", "number", "yes_no", "yes_no", "number", "choice"]
    )
    keys = list(survey.questions.order_by("position").values_list("key", flat=True))
    assert keys[:5] == ["cheated_exam", "drove_after_drinking", "vote", "age_group", "hours_online"]
    assert Question.objects.filter(survey=survey, design__name="crosswise").exists()
    # The cheating-detection question comes next, answered as {group, report}; then issue 16's
    # skip-logic question (children, from 30 on) and Likert question.
    assert keys[6:] == ["bribe", "children", "overwhelmed"]
    by_key = {q["key"]: q for q in estimates_body(survey=survey)["questions"]}
    ages = next(q for q in estimates_body(survey=survey)["questions"] if q["key"] == "age_group")
    asked = sum(o["count"] for o in ages["options"] if o["option"] in seed_demo.CHILDREN_ASKED)
    assert by_key["children"]["n"] == asked < 60  # shown from 30 on, every one shown answered
    assert by_key["hours_online"]["n"] < 60  # optional: a few leave it out
    score = by_key["overwhelmed"]["mean_score"]
    assert score["min"] == 1 and score["max"] == 5 and score["std_error"] > 0
    # Every question, the Likert one included, can be randomized with coins and dice: the
    # demo's no-JavaScript page can send.
    from surveys.forms import physical_protocol

    assert all(physical_protocol(q).possible for q in survey.questions.all())
    assert Question.objects.filter(survey=survey, design__name="cheater_detection").exists()
    bribe = next(q for q in estimates_body(survey=survey)["questions"] if q["key"] == "bribe")
    assert sum(g["n"] for g in bribe["groups"]) == 60 and "cheaters" in bribe
    assert selectors.survey_respondent_count(survey=survey) == 60
    call_command("seed_demo", "--respondents", "60", stdout=io.StringIO())
    assert Survey.objects.filter(slug="demo").count() == 1
    assert selectors.survey_respondent_count(survey=survey) == 60
    body = estimates_body(survey=survey, group_by="age_group")
    assert len(body["groups"]) == 4
    assert Question.objects.filter(survey=survey, kind="yes_no", design__name="warner").exists()
