"""Management commands: seed_demo, rebuild_tallies (createresearcher: tests/accounts/
test_commands.py)."""

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
    from surveys.pages.forms import physical_protocol

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


def test_rebuild_tallies_recounts_with_a_progress_bar(monkeypatch):
    """``rebuild_tallies`` on a survey of more than one chunk: the bar on stderr reaches 100 %
    and the recount equals the counts the submissions produced (issue 29)."""
    from django.test import override_settings

    from surveys.models import Tally
    from surveys.services import tallies
    from testsupport.factories import make_survey, make_user, submit_many

    monkeypatch.setattr(tallies, "CHUNK", 5)
    survey = make_survey(make_user("rebuilder"))
    with override_settings(DENIABLE_ESTIMATE_BATCH=1):
        submit_many(survey, 12, lambda i: {"coin": i % 3 == 0, "mirror": False, "party": "a"})
    before = selectors.survey_counts(survey=survey)
    Tally.objects.filter(survey=survey).delete()
    out, err = io.StringIO(), io.StringIO()
    call_command("rebuild_tallies", survey.slug, stdout=out, stderr=err)
    bar = err.getvalue()
    assert all(f"{n}/12 submissions" in bar for n in (5, 10, 12)), bar
    assert "100%" in bar
    assert f"{survey.slug}: " in out.getvalue()
    after = selectors.survey_counts(survey=survey)
    assert after.respondents == before.respondents == 12
    assert after.cells == before.cells
    quiet = io.StringIO()
    call_command(
        "rebuild_tallies", survey.slug, "--no-progress", stdout=io.StringIO(), stderr=quiet
    )
    assert quiet.getvalue() == ""
