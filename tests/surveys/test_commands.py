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
    # The original five kinds, then the questions of issue 15 appended at the end.
    assert kinds == sorted(["yes_no", "yes_no", "choice", "category", "number", "yes_no", "yes_no"])
    keys = list(survey.questions.order_by("position").values_list("key", flat=True))
    assert keys[:5] == ["cheated_exam", "drove_after_drinking", "vote", "age_group", "hours_online"]
    assert Question.objects.filter(survey=survey, design__name="crosswise").exists()
    # The cheating-detection question is the last one, answered as {group, report}.
    assert keys[-1] == "bribe"
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
