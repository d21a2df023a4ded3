"""The input serializers are the one validator (issue 12, point 1): rules that had drifted between
the schema and the services, the ranges the OpenAPI document states, and services that take
typed, frozen values."""

from __future__ import annotations

import dataclasses
import inspect
import re
import uuid
from typing import Any
from unittest import mock

import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from deniable.errors import InvalidInput
from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN
from privacy import services as privacy_services
from privacy.specs import ReleaseSpec
from surveys import inputs, services
from surveys.definitions.specs import KEY_PATTERN, KEY_RE, QuestionSpec, SubmissionSpec, SurveySpec
from testsupport import factories
from testsupport.factories import full_answers, new_id, survey_body

pytestmark = pytest.mark.django_db

API = "/api/v1"
KEY_MESSAGE = "Use a slug: letters, digits, - or _ (at most 64 characters)."


def _question(**fields: Any) -> dict[str, Any]:
    return {"key": "q", "text": "?", "kind": "yes_no", **fields}


# --- rules that had drifted ---------------------------------------------------------------------


@pytest.mark.parametrize("key", ["-a", "_a", "a" * 65, "has space", "é", ""])
def test_a_key_refused_by_key_re_is_refused_at_the_api(api, key):
    """The schema's SlugField took ``-a``, which KEY_RE refuses: now one rule, one message."""
    assert not KEY_RE.match(key)
    r = api.post(f"{API}/surveys/", survey_body(questions=[_question(key=key)]), format="json")
    assert r.status_code == 400
    assert r.json()["errors"]["questions[0].key"] == [KEY_MESSAGE]


@pytest.mark.parametrize("key", ["a", "A-1", "0_b", "a" * 64])
def test_a_key_key_re_takes_is_taken(api, key):
    assert KEY_RE.match(key)
    r = api.post(f"{API}/surveys/", survey_body(questions=[_question(key=key)]), format="json")
    assert r.status_code == 201, r.json()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (survey_body(budget={"epsilon": "1"}), "budget.epsilon"),  # a string, not coerced
        (survey_body(budget={"epsilon": True}), "budget.epsilon"),
        (survey_body(planned_n=2.0), "planned_n"),
        (survey_body(planned_n="5"), "planned_n"),
        (survey_body(response_cap=2_000_000_001), "response_cap"),
        (survey_body(title="x" * 201), "title"),
        (survey_body(questions=[_question(kind="number", min=0, max=1e9 + 1)]), "questions[0].max"),
        (survey_body(questions=[_question(text=7)]), "questions[0].text"),
        (survey_body(questions=[_question()] * 2), "questions[1].key"),
        (survey_body(questions=[_question()] * 101), "questions"),
    ],
)
def test_survey_rules_without_coercion(api, body, field):
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()


def test_option_count_message_is_the_one_the_builder_reads(api):
    body = survey_body(questions=[_question(kind="choice", options=["only"])])
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.json()["errors"]["questions[0].options"] == ["Give 2 to 50 options (got 1)."]


def test_options_of_a_direct_kind_may_be_an_empty_list(api):
    body = survey_body(questions=[_question(options=[])])
    assert api.post(f"{API}/surveys/", body, format="json").status_code == 201


def test_no_js_form_refuses_with_the_api_rule(client, survey):
    """The respondent form parses; the range is the submission serializer's (one copy)."""
    api_refusal = factories.submission_create
    with pytest.raises(InvalidInput) as caught:
        api_refusal(
            survey=survey,
            submission_id=new_id(),
            randomizer="browser",
            answers=full_answers(hours=81),
        )
    message = caught.value.errors["answers.hours"][0]
    form = {"q-coin": "yes", "q-mirror": "no", "q-party": "a", "q-age": "young", "q-hours": "81"}
    r = client.post(reverse("respond-submit", args=[survey.slug]), form)
    assert r.status_code == 400
    assert message == "Must be between 0 and 80." and message in r.content.decode()


def test_invitation_page_and_api_share_the_count_rule(api, client, alice, invite_survey):
    r = api.post(f"{API}/surveys/{invite_survey.slug}/invitations/", {"count": 0}, format="json")
    message = r.json()["errors"]["count"][0]
    client.force_login(alice)
    page = client.post(reverse("survey-invitations", args=[invite_survey.slug]), {"count": 0})
    assert page.status_code == 400 and message in page.content.decode()


# --- the schema states every range and rule -----------------------------------------------------


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return schema["components"]["schemas"]


def _prop(components: dict[str, Any], component: str, name: str) -> dict[str, Any]:
    node = components[component]["properties"][name]
    ref = node.get("$ref") or next((x["$ref"] for x in node.get("allOf", []) if "$ref" in x), None)
    if ref:  # an enum component
        node = {**node, **components[ref.rsplit("/", 1)[1]]}
    return node


SCHEMA_RULES = [
    ("QuestionIn", "key", {"pattern": KEY_PATTERN, "maxLength": 64}),
    ("QuestionIn", "options", {"minItems": 2, "maxItems": 50}),
    ("QuestionIn", "min", {"minimum": -1e9, "maximum": 1e9}),
    ("QuestionIn", "max", {"minimum": -1e9, "maximum": 1e9}),
    ("QuestionIn", "kind", {"enum": ["yes_no", "choice", "category", "number", "multi"]}),
    ("SurveyIn", "title", {"maxLength": 200}),
    ("SurveyIn", "questions", {"maxItems": 100}),
    ("SurveyIn", "response_cap", {"minimum": 1, "maximum": 2_000_000_000}),
    ("SurveyIn", "planned_n", {"minimum": 1, "maximum": 2_000_000_000}),
    ("SurveyIn", "access", {"enum": ["open", "invite"]}),
    ("SurveyBudgetIn", "epsilon", {"minimum": 0, "exclusiveMinimum": True}),
    ("SurveyBudgetIn", "delta", {"minimum": 1e-100, "maximum": 1e-3}),
    ("InvitationRequest", "count", {"minimum": 1, "maximum": 10_000}),
    ("InvitationRequest", "format", {"enum": ["json", "csv"]}),
    ("SubmissionRequest", "submission_id", {"format": "uuid"}),
    ("SubmissionRequest", "token", {"maxLength": 200}),
    ("SubmissionRequest", "randomizer", {"enum": ["browser", "physical"]}),
    ("ReleaseRequest", "mechanism", {"enum": ["laplace", "gaussian", "exponential"]}),  # §8.10
    ("ReleaseRequest", "epsilon", {"minimum": 1e-12, "maximum": 1e6}),
    ("ReleaseRequest", "delta", {"minimum": 1e-100, "maximum": 1e-3}),
    ("ReleaseRequest", "rho", {"minimum": 1e-24, "maximum": 1e12}),
    ("ReleaseRequest", "request_id", {"maxLength": 100}),
    ("InvitationCheckRequest", "token", {"maxLength": 200, "minLength": 1}),
    ("DesignPreviewRequest", "kind", {"enum": ["yes_no", "choice", "multi"]}),
    ("DesignPreviewRequest", "k", {"minimum": 2, "maximum": 50}),
    ("DesignPreviewRequest", "prior", {"minimum": 0, "maximum": 1}),
    (
        "DesignPreviewRequest",
        "confidence",
        {"minimum": CONFIDENCE_MIN, "maximum": CONFIDENCE_MAX},  # dpcore.validation
    ),
]


@pytest.mark.parametrize(("component", "name", "rules"), SCHEMA_RULES)
def test_schema_states_the_rule(components, component, name, rules):
    prop = _prop(components, component, name)
    assert {k: prop.get(k) for k in rules} == rules, prop


def test_schema_states_the_design_shapes_and_ranges(components):
    shapes = {
        shape["properties"]["name"]["enum"][0]: shape
        for shape in components["QuestionIn"]["properties"]["design"]["oneOf"]
    }
    assert set(shapes) == {
        "forced_response",
        "warner",
        "unrelated_question",
        "k_rr",
        # issue 15
        "two_probability",
        "crosswise",
        "cheater_detection",
        # issue 26.1
        "oue",
        # issue 23 (the ≤ 3-file measure), issue 26.5
        "unrelated_question_unknown",
    }
    uqt = shapes["unrelated_question_unknown"]["properties"]
    assert uqt["groups"]["items"]["required"] == ["p"]
    assert uqt["innocuous_prevalence_min"]["maximum"] == 1
    assert shapes["oue"]["properties"]["epsilon"]["maximum"] == 10.0
    assert shapes["crosswise"]["properties"]["innocuous_text"]["type"] == "string"
    groups = shapes["cheater_detection"]["properties"]["groups"]
    assert (groups["minItems"], groups["maxItems"]) == (2, 2)
    assert groups["items"]["properties"]["p_yes"]["maximum"] == 1
    a = shapes["two_probability"]["properties"]["p_yes_if_trait"]
    assert (a["minimum"], a["maximum"]) == (0, 1)
    p_truth = shapes["forced_response"]["properties"]["p_truth"]
    assert (p_truth["minimum"], p_truth["maximum"]) == (0, 1)
    epsilon = shapes["k_rr"]["properties"]["epsilon"]
    assert (epsilon["minimum"], epsilon["exclusiveMinimum"], epsilon["maximum"]) == (0, True, 10.0)


def test_required_fields_are_stated(components):
    assert set(components["SurveyIn"]["required"]) == {"title"}
    assert set(components["QuestionIn"]["required"]) == {"key", "text", "kind"}
    assert set(components["SubmissionRequest"]["required"]) == {
        "submission_id",
        "randomizer",
        "answers",
    }
    assert components["ReleaseRequest"]["required"] == ["mechanism"]
    assert "required" not in components["PatchedSurveyPatch"]


def test_the_key_pattern_in_the_schema_is_the_regex_that_validates():
    assert re.compile(KEY_PATTERN).pattern == KEY_RE.pattern


# --- services take typed, frozen values ---------------------------------------------------------


SERVICES = [
    services.survey_create,
    services.survey_update,
    services.submission_create,
    services.invitations_create,
    privacy_services.release_plan,
    privacy_services.release_request,
    privacy_services.release_preview,
]


@pytest.mark.parametrize("service", SERVICES, ids=lambda f: f.__name__)
def test_services_take_typed_keyword_arguments(service):
    parameters = inspect.signature(service).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    assert all(p.annotation is not inspect.Parameter.empty for p in parameters)
    assert "data" not in {p.name for p in parameters}


def test_specs_are_frozen():
    spec = inputs.survey_spec(survey_body())
    assert isinstance(spec, SurveySpec) and isinstance(spec.questions[0], QuestionSpec)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.title = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.questions[0].design["name"] = "warner"  # type: ignore[index]


def test_api_calls_services_with_typed_values(api, alice, invite_survey, anon):
    with mock.patch.object(services, "survey_create", wraps=services.survey_create) as create:
        assert api.post(f"{API}/surveys/", survey_body(), format="json").status_code == 201
    kwargs = create.call_args.kwargs
    assert isinstance(kwargs["budget_epsilon"], float) and isinstance(kwargs["title"], str)
    assert all(isinstance(q, QuestionSpec) for q in kwargs["questions"])

    with mock.patch.object(services, "invitations_create", wraps=services.invitations_create) as m:
        url = f"{API}/surveys/{invite_survey.slug}/invitations/"
        token = api.post(url, {"count": 1}, format="json").json()["tokens"][0]
    assert m.call_args.kwargs["count"] == 1

    body = {"submission_id": new_id(), "randomizer": "browser", "answers": full_answers()}
    with mock.patch.object(services, "submission_create", wraps=services.submission_create) as m:
        url = f"{API}/surveys/{invite_survey.slug}/responses/"
        assert anon.post(url, {**body, "token": token}, format="json").status_code == 201
    kwargs = m.call_args.kwargs
    assert isinstance(kwargs["submission_id"], uuid.UUID) and kwargs["token"] == token
    assert dict(kwargs["answers"]) == {**full_answers(), "hours": 12.5}

    release = {"mechanism": "laplace", "epsilon": 0.5}
    with mock.patch.object(
        privacy_services, "release_preview", wraps=privacy_services.release_preview
    ) as m:
        url = f"{API}/surveys/{invite_survey.slug}/releases/preview/"
        assert api.post(url, release, format="json").status_code == 200
    spec = m.call_args.kwargs["spec"]
    assert isinstance(spec, ReleaseSpec) and spec.questions == (
        "coin",
        "mirror",
        "party",
        "age",
        "hours",
    )


def test_submission_spec_holds_reported_answers_only(survey):
    spec = inputs.submission_spec(
        questions=list(survey.questions.all()),
        data={"submission_id": new_id(), "randomizer": "physical", "answers": full_answers()},
    )
    assert isinstance(spec, SubmissionSpec) and spec.token is None
    assert set(spec.answers) == set(full_answers())


def test_submission_fields_reused_per_thread_keep_each_calls_context(survey, alice):
    """The hot-path serializer copies its fields once per thread: every call still validates
    against its own survey's questions, and a refusal leaves nothing behind for the next."""
    other = factories.survey_create(owner=alice, data={"title": "T", "questions": [_question()]})
    body = {"submission_id": new_id(), "randomizer": "browser", "answers": full_answers()}
    mine, theirs = list(survey.questions.all()), list(other.questions.all())
    for _ in range(3):
        assert inputs.submission_spec(questions=mine, data=body).answers["party"] == "b"
        with pytest.raises(InvalidInput) as caught:
            inputs.submission_spec(questions=theirs, data=body)
        assert "answers.q" in caught.value.errors and "answers.party" in caught.value.errors
        with pytest.raises(InvalidInput) as bad:
            inputs.submission_spec(questions=mine, data={**body, "randomizer": "server"})
        assert set(bad.value.errors) == {"randomizer"}
