"""API v1 (DESIGN §8.4, issue 22 item 1): a number answer is stored as given or refused, never
dropped — out of [min, max] is a 400 naming ``answers.<key>`` for optional questions too, and a
fraction where ``"integer": true`` is one as well. ``integer`` itself is validated at definition."""

from __future__ import annotations

import pytest

from surveys.models import Submission
from tests.surveys.api.support import API, open_survey, post_response
from testsupport.factories import survey_body

pytestmark = pytest.mark.django_db

HOURS = {"key": "hours", "text": "Hours?", "kind": "number", "min": 0, "max": 80}
KIDS = {"key": "kids", "text": "Children?", "kind": "number", "min": 0, "max": 12}


@pytest.mark.parametrize("required", [True, False], ids=["required", "optional"])
@pytest.mark.parametrize("value", [99, -1, 80.0001])
def test_out_of_range_is_refused_for_every_question(api, anon, required, value):
    survey = open_survey(api, survey_body(questions=[{**HOURS, "required": required}]))
    r = post_response(anon, survey, answers={"hours": value})
    assert r.status_code == 400, r.content
    assert "between 0 and 80" in " ".join(r.json()["errors"]["answers.hours"])
    assert Submission.objects.count() == 0


def test_integer_question_refuses_a_fraction_and_takes_whole_numbers(api, anon):
    survey = open_survey(api, survey_body(questions=[{**KIDS, "integer": True, "required": False}]))
    r = post_response(anon, survey, answers={"kids": 2.5})
    assert r.status_code == 400, r.content
    assert r.json()["errors"]["answers.kids"] == ["Must be a whole number."]
    assert Submission.objects.count() == 0
    assert post_response(anon, survey, answers={"kids": 2}).status_code == 201
    assert post_response(anon, survey, answers={"kids": 3.0}).status_code == 201
    assert post_response(anon, survey, answers={}).status_code == 201  # left out: optional


def test_not_integer_question_takes_a_fraction(api, anon):
    survey = open_survey(api, survey_body(questions=[HOURS]))
    assert post_response(anon, survey, answers={"hours": 2.5}).status_code == 201


def test_integer_round_trips_and_defaults_to_false(api):
    body = survey_body(questions=[HOURS, {**KIDS, "integer": True}])
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 201, r.content
    qs = {q["key"]: q for q in r.json()["questions"]}
    assert qs["hours"]["integer"] is False and qs["kids"]["integer"] is True


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ({"key": "c", "text": "C?", "kind": "yes_no", "integer": True}, "Only a number"),
        ({**KIDS, "integer": "yes"}, ""),
        ({**KIDS, "min": 0.2, "max": 0.8, "integer": True}, "No whole number"),
    ],
    ids=["not-a-number-question", "not-a-boolean", "no-whole-number-in-range"],
)
def test_integer_refusals_name_the_field(api, question, words):
    r = api.post(f"{API}/surveys/", survey_body(questions=[question]), format="json")
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert "questions[0].integer" in errors, errors
    assert words in " ".join(errors["questions[0].integer"])


def test_builder_offers_and_fills_the_integer_control(api, client, alice):
    """The builder's number card has the "Whole numbers only" box, filled from the draft."""
    import json
    import re

    r = api.post(
        f"{API}/surveys/", survey_body(questions=[{**KIDS, "integer": True}]), format="json"
    )
    assert r.status_code == 201, r.content
    client.force_login(alice)
    html = client.get(f"/surveys/{r.json()['slug']}/edit/").content.decode()
    assert 'data-path="integer"' in html and "Whole numbers only" in html
    island = re.search(r'<script id="builder-data" type="application/json">(.*?)</script>', html)
    assert island is not None
    (kids,) = json.loads(island.group(1))["survey"]["questions"]
    assert kids["integer"] is True
