"""API v1 (docs/api.md#questions): the issue-16 question fields ``required``, ``show_if`` and
``ordered`` — every refusal is a 400 naming the field, and the submission rules they imply."""

from __future__ import annotations

import pytest

from surveys.models import Submission
from tests.surveys.api.support import API, post_response, url
from testsupport.factories import survey_body

pytestmark = pytest.mark.django_db

AGE = {"key": "age", "text": "Age group?", "kind": "category", "options": ["18-29", "30+"]}
KIDS = {
    "key": "kids",
    "text": "How many children?",
    "kind": "number",
    "min": 0,
    "max": 20,
    "show_if": {"key": "age", "in": ["30+"]},
}
USE = {"key": "use", "text": "Used it?", "kind": "yes_no", "required": False}
MOOD = {
    "key": "mood",
    "text": "How often?",
    "kind": "choice",
    "options": ["never", "sometimes", "often"],
    "ordered": True,
}
HOURS = {
    "key": "hours",
    "text": "Hours?",
    "kind": "number",
    "min": 0,
    "max": 100,
    "required": False,
}


def _create(api, questions):
    return api.post(f"{API}/surveys/", survey_body(questions=questions), format="json")


def _open_survey(api, questions):
    r = _create(api, questions)
    assert r.status_code == 201, r.json()
    slug = r.json()["slug"]
    assert api.post(f"{API}/surveys/{slug}/open/").status_code == 200
    from surveys.models import Survey

    return Survey.objects.get(slug=slug)


def test_fields_round_trip_with_defaults(api):
    r = _create(api, [AGE, KIDS, USE, MOOD, HOURS])
    assert r.status_code == 201, r.json()
    qs = {q["key"]: q for q in r.json()["questions"]}
    assert qs["age"]["required"] is True and qs["age"]["show_if"] is None
    assert qs["kids"]["show_if"] == {"key": "age", "in": ["30+"]}
    assert qs["use"]["required"] is False
    assert qs["mood"]["ordered"] is True and qs["age"]["ordered"] is False
    got = api.get(f"{API}/surveys/{r.json()['slug']}/").json()["questions"]
    assert [q["show_if"] for q in got] == [q["show_if"] for q in r.json()["questions"]]


@pytest.mark.parametrize(
    ("questions", "field", "words"),
    [
        ([{**USE, "required": "no"}], "questions[0].required", "true or false"),
        ([{**MOOD, "ordered": 1}], "questions[0].ordered", "true or false"),
        ([{**AGE, "ordered": True}], "questions[0].ordered", "Only a choice question"),
        ([{**USE, "ordered": True}], "questions[0].ordered", "Only a choice question"),
        (
            [AGE, {**USE, "show_if": {"key": "age", "in": ["30+"]}}],
            "questions[1].show_if",
            "a randomized question is always shown",
        ),
        (
            [AGE, {**MOOD, "show_if": {"key": "age", "in": ["30+"]}}],
            "questions[1].show_if",
            "a randomized question is always shown",
        ),
        (
            [USE, {**KIDS, "show_if": {"key": "use", "in": ["yes"]}}],
            "questions[1].show_if",
            "a randomized report must never decide what is shown next",
        ),
        (
            [MOOD, {**KIDS, "show_if": {"key": "mood", "in": ["often"]}}],
            "questions[1].show_if",
            "a randomized report must never decide what is shown next",
        ),
        ([HOURS, {**KIDS, "show_if": {"key": "hours", "in": ["1"]}}], "questions[1].show_if",
         "must follow a category one"),
        ([KIDS, AGE], "questions[0].show_if", "comes later"),
        ([{**KIDS, "show_if": {"key": "nope", "in": ["x"]}}], "questions[0].show_if", "Unknown"),
        ([AGE, {**KIDS, "show_if": {"key": "age", "in": ["60+"]}}], "questions[1].show_if",
         "Not options of 'age'"),
        ([AGE, {**KIDS, "show_if": {"key": "age", "in": []}}], "questions[1].show_if.in",
         "at least one"),
        ([AGE, {**KIDS, "show_if": {"key": "age"}}], "questions[1].show_if.in", "required"),
        ([AGE, {**KIDS, "show_if": ["age"]}], "questions[1].show_if", ""),
        ([AGE, {**KIDS, "show_if": {"key": "age", "in": ["30+", "30+"]}}],
         "questions[1].show_if", "unique"),
    ],
)  # fmt: skip
def test_refusals_name_the_field(api, questions, field, words):
    r = _create(api, questions)
    assert r.status_code == 400, r.json()
    errors = r.json()["errors"]
    assert field in errors, errors
    assert words in " ".join(errors[field])


def test_patch_shares_the_rules(api, draft):
    questions = [USE, {**KIDS, "show_if": {"key": "use", "in": ["x"]}}]
    r = api.patch(url(draft), {"questions": questions}, format="json")
    assert r.status_code == 400 and "questions[1].show_if" in r.json()["errors"]


def test_optional_question_may_be_left_out_required_may_not(api, anon):
    survey = _open_survey(api, [AGE, USE, MOOD, HOURS])
    assert post_response(anon, survey, {"age": "30+", "mood": "never"}).status_code == 201
    r = post_response(anon, survey, {"use": True, "hours": 3})
    assert r.status_code == 400
    assert set(r.json()["errors"]) == {"answers.age", "answers.mood"}
    assert "must be answered" in r.json()["errors"]["answers.age"][0]
    # null is "no answer" too
    r = post_response(anon, survey, {"age": "18-29", "mood": "often", "use": None, "hours": None})
    assert r.status_code == 201
    assert Submission.objects.filter(survey=survey).count() == 2


def test_skip_logic_hidden_answer_refused_shown_one_required(api, anon):
    survey = _open_survey(api, [AGE, KIDS])
    # hidden (age 18-29): kids must be absent, and is not "missing"
    assert post_response(anon, survey, {"age": "18-29"}).status_code == 201
    r = post_response(anon, survey, {"age": "18-29", "kids": 2})
    assert r.status_code == 400
    assert "asked only of those who answered “30+”" in r.json()["errors"]["answers.kids"][0]
    # shown (age 30+): kids is required
    r = post_response(anon, survey, {"age": "30+"})
    assert r.status_code == 400 and "answers.kids" in r.json()["errors"]
    assert post_response(anon, survey, {"age": "30+", "kids": 2}).status_code == 201
    # a refused age: kids is not judged (its error would only echo the other one)
    r = post_response(anon, survey, {"age": "old", "kids": 2})
    assert set(r.json()["errors"]) == {"answers.age"}


def test_optional_source_left_out_hides_the_dependent(api, anon):
    survey = _open_survey(api, [{**AGE, "required": False}, KIDS])
    assert post_response(anon, survey, {}).status_code == 201
    r = post_response(anon, survey, {"kids": 1})
    assert r.status_code == 400 and "answers.kids" in r.json()["errors"]


def test_openapi_schema_states_the_fields():
    from drf_spectacular.generators import SchemaGenerator

    schemas = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    question_in = schemas["QuestionIn"]["properties"]
    assert question_in["required"]["default"] is True and question_in["ordered"]["default"] is False
    assert schemas["ShowIfIn"]["properties"]["in"]["minItems"] == 1
    assert set(schemas["ShowIfIn"]["required"]) == {"key", "in"}
    assert {"required", "show_if", "ordered"} <= set(schemas["QuestionOut"]["properties"])
    score = schemas["QuestionEstimate"]["properties"]["mean_score"]
    ref = next(x["$ref"] for x in score.get("allOf", [score]) if "$ref" in x)
    fields = schemas[ref.rsplit("/", 1)[1]]["properties"]
    assert {"estimate", "std_error", "ci_low", "ci_high", "min", "max"} <= set(fields)
