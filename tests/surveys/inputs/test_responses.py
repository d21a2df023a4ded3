"""surveys/inputs/responses.py: a survey's prepared SubmissionSchema accepts exactly what the
serializer accepts, gives the same spec, and leaves every refusal's words to the serializer."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from deniable.errors import InvalidInput
from deniable.inputs import validate_input
from surveys.collection.public_survey_cache import invalidate, survey_get_public_cached
from surveys.definitions.specs import MAX_TOKEN_LENGTH, SubmissionSpec
from surveys.inputs.responses import SubmissionRequestSerializer, SubmissionSchema, schema_of
from tests.surveys.kinds.matrix_support import matrix_questions
from tests.surveys.kinds.matrix_support import survey_body as matrix_body
from testsupport.factories import full_answers, make_survey, make_user, new_id, survey_body

pytestmark = pytest.mark.django_db


def _outcome(run) -> tuple[str, Any]:
    try:
        return "ok", run()
    except InvalidInput as exc:
        return "refused", exc.as_body()


def _bodies(answers: dict[str, Any]) -> list[Any]:
    sid = new_id()
    first_key = next(iter(answers))
    return [
        {"submission_id": sid, "randomizer": "browser", "answers": answers},
        {"submission_id": sid, "randomizer": "physical", "answers": answers, "token": None},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": "t" * 5},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": "  "},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "extra": 1},
        # The spellings of a uuid that ``uuid.UUID`` (and so the serializer) takes.
        {"submission_id": sid.upper(), "randomizer": "browser", "answers": answers},
        {"submission_id": "{" + sid + "}", "randomizer": "browser", "answers": answers},
        {"submission_id": f"urn:uuid:{sid}", "randomizer": "browser", "answers": answers},
        # Everything below is refused.
        {"submission_id": str(uuid.uuid1()), "randomizer": "browser", "answers": answers},
        {"submission_id": "nope", "randomizer": "browser", "answers": answers},
        {"submission_id": 4, "randomizer": "browser", "answers": answers},
        {"submission_id": None, "randomizer": "browser", "answers": answers},
        {"randomizer": "browser", "answers": answers},
        {"submission_id": sid, "answers": answers},
        {"submission_id": sid, "randomizer": "browser"},
        {"submission_id": sid, "randomizer": "Browser", "answers": answers},
        {"submission_id": sid, "randomizer": ["browser"], "answers": answers},
        {"submission_id": sid, "randomizer": True, "answers": answers},
        {"submission_id": sid, "randomizer": None, "answers": answers},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": ""},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": 5},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": "a\x00b"},
        {"submission_id": sid, "randomizer": "browser", "answers": answers, "token": "\ud800"},
        {
            "submission_id": sid,
            "randomizer": "browser",
            "answers": answers,
            "token": "t" * (MAX_TOKEN_LENGTH + 1),
        },
        {"submission_id": sid, "randomizer": "browser", "answers": None},
        {"submission_id": sid, "randomizer": "browser", "answers": [answers]},
        {"submission_id": sid, "randomizer": "browser", "answers": {**answers, "zzz": 1}},
        {"submission_id": sid, "randomizer": "browser", "answers": {**answers, first_key: None}},
        {"submission_id": sid, "randomizer": "browser", "answers": {**answers, first_key: "?"}},
        {"submission_id": sid, "randomizer": "browser", "answers": {}},
        {"submission_id": sid, "randomizer": "dice", "answers": {"zzz": 1}},
        [sid],
        "body",
        None,
    ]


@pytest.fixture(params=["full", "matrix"])
def survey(request):
    owner = make_user("alice", "alice-pw-123")
    if request.param == "full":
        return make_survey(owner, survey_body()), full_answers()
    return make_survey(owner, matrix_body()), {q["key"]: a for _, q, a in matrix_questions()}


def test_the_schema_accepts_and_refuses_as_the_serializer_does(survey):
    survey, answers = survey
    questions = list(survey.questions.all())
    schema = SubmissionSchema(questions)
    bodies = _bodies(answers)
    for body in bodies:
        ours = _outcome(lambda body=body: schema.spec(body))
        theirs = _outcome(
            lambda body=body: validate_input(
                SubmissionRequestSerializer, body, SubmissionSpec, questions=questions
            )
        )
        assert ours == theirs, body
    # The first eight are taken by the prepared checks alone (the serializer never runs); the
    # rest are refusals, worded by the serializer.
    assert all(schema._accepted(body) is not None for body in bodies[:8])
    assert all(schema._accepted(body) is None for body in bodies[8:])
    assert all(_outcome(lambda body=body: schema.spec(body))[0] == "refused" for body in bodies[8:])


def test_the_survey_s_schema_is_built_once_per_cached_survey():
    survey = make_survey(make_user("alice", "alice-pw-123"))
    invalidate()
    try:
        cached = survey_get_public_cached(slug=survey.slug)
        assert schema_of(cached) is schema_of(cached)
        assert [q.key for q in schema_of(cached).questions] == list(full_answers())
        invalidate(slug=survey.slug)
        again = survey_get_public_cached(slug=survey.slug)
        assert again is not cached and schema_of(again) is not schema_of(cached)
    finally:
        invalidate()
