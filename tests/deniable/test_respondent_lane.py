"""The respondent submission's shorter middleware chain (deniable/respondent_lane.py): the same
answers, status codes and security headers as through the whole stack, no session touched, and
every middleware it leaves out named with a reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client, override_settings
from django.urls import Resolver404, reverse

from deniable.respondent_lane import SKIPPED, lane_path, lane_wanted
from surveys.collection.public_survey_cache import invalidate
from testsupport.factories import full_answers, make_survey, make_user, new_id

pytestmark = pytest.mark.django_db

LANE = "deniable.respondent_lane.RespondentApiLaneMiddleware"
# Headers that differ between any two responses whatever the stack.
VOLATILE = {"Content-Length"}


def _without_lane() -> list[str]:
    return [m for m in settings.MIDDLEWARE if m != LANE]


@pytest.fixture
def survey():
    invalidate()
    yield make_survey(make_user("alice", "alice-pw-123"))
    invalidate()


def _post(client: Client, survey, body: Any, **extra: Any):
    return client.post(
        f"/api/v1/surveys/{survey.slug}/responses/",
        json.dumps(body),
        content_type="application/json",
        **extra,
    )


def _body(**overrides: Any) -> dict[str, Any]:
    return {
        "submission_id": new_id(),
        "randomizer": "browser",
        "answers": full_answers(),
        **overrides,
    }


def _headers(response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k not in VOLATILE}


def test_the_lean_list_is_the_rest_of_the_stack_minus_the_skipped_ones():
    """Same classes, same order; every middleware after the lane is either kept or skipped with
    a reason, so a middleware added to MIDDLEWARE later fails here until someone decides."""
    rest = settings.MIDDLEWARE[settings.MIDDLEWARE.index(LANE) + 1 :]
    lean = settings.DENIABLE_RESPONDENT_API_MIDDLEWARE
    assert [m for m in rest if m in lean] == lean
    assert set(rest) == set(lean) | set(SKIPPED)
    assert not set(lean) & set(SKIPPED)
    # In front of the lane: what every response needs (TLS redirect, the size cap, headers).
    front = settings.MIDDLEWARE[: settings.MIDDLEWARE.index(LANE)]
    assert "django.middleware.security.SecurityMiddleware" in front
    assert "deniable.middleware.RequestSizeLimitMiddleware" in front
    assert "deniable.security.SecurityHeadersMiddleware" in front


def test_only_the_json_submission_takes_the_lane(rf):
    path = lane_path()
    responses = reverse("api-survey-responses", args=["abc"])
    assert lane_wanted(rf.post(responses), path)
    assert lane_wanted(rf.post(reverse("api-survey-responses", args=["other-1"])), path)
    assert not lane_wanted(rf.options(responses), path)
    assert not lane_wanted(rf.get(responses), path)
    assert not lane_wanted(rf.post(reverse("api-survey-invitations", args=["abc"])), path)
    assert not lane_wanted(rf.post(responses + "extra/"), path)
    assert not lane_wanted(rf.post(reverse("respond", args=["abc"])), path)


@pytest.mark.parametrize(
    "case",
    ["accepted", "duplicate", "conflict", "invalid", "unknown survey", "not json"],
)
def test_same_answer_and_headers_as_the_whole_stack(survey, case):
    """Each case posted through the lane and through the whole stack (the lane taken out of
    MIDDLEWARE): the same status, body and headers — but ``Vary: Cookie``, which the whole
    stack adds because its two-factor gate looks at the (anonymous) user's session."""

    def bodies() -> list[tuple[Any, str]]:
        sid = new_id()
        if case == "accepted":
            return [(_body(), survey.slug)]
        if case == "duplicate":
            return [(_body(submission_id=sid), survey.slug)] * 2
        if case == "conflict":
            other = _body(submission_id=sid, answers=full_answers(coin=False))
            return [(_body(submission_id=sid), survey.slug), (other, survey.slug)]
        if case == "invalid":
            return [(_body(randomizer="dice", answers={"nope": 1}), survey.slug)]
        if case == "unknown survey":
            return [(_body(), "no-such-survey")]
        return [("[1, 2]", survey.slug)]

    def run() -> tuple[int, Any, dict[str, str]]:
        response = None
        for body, slug in bodies():
            response = Client().post(
                f"/api/v1/surveys/{slug}/responses/",
                body if isinstance(body, str) else json.dumps(body),
                content_type="application/json",
                HTTP_ACCEPT_LANGUAGE="es",
            )
        assert response is not None
        data = response.json()
        data.pop("submission_id", None)  # fresh ids on each run
        return response.status_code, data, _headers(response)

    lane = run()
    with override_settings(MIDDLEWARE=_without_lane()):
        whole = run()
    assert lane[:2] == whole[:2]
    whole_vary = [v.strip() for v in whole[2].pop("Vary").split(",")]
    lane_vary = [v.strip() for v in lane[2].pop("Vary").split(",")]
    assert lane_vary == [v for v in whole_vary if v != "Cookie"]
    assert lane[2] == whole[2]


def test_the_headers_the_security_tests_require(survey):
    from tests.security.test_headers import assert_security_headers

    for body in (_body(), _body(randomizer="dice")):
        response = _post(Client(), survey, body)
        assert response.status_code in (201, 400)
        assert_security_headers(response)
        assert response["Content-Type"] == "application/json"
        assert response["Content-Language"] == "en"
        assert not response.cookies


def test_a_researchers_session_is_neither_read_nor_renewed(survey):
    """A researcher trying their own survey in the browser they are signed in with: the post
    answers as for anyone, sets no cookie and leaves the session row as it was (the whole stack
    re-saved it, SESSION_SAVE_EVERY_REQUEST, and sent its cookie back on the response)."""
    client = Client()
    client.force_login(make_user("bob", "bob-pw-123"))
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    before = Session.objects.get(session_key=key).expire_date
    response = _post(client, survey, _body())
    assert response.status_code == 201
    assert not response.cookies
    assert Session.objects.get(session_key=key).expire_date == before
    with override_settings(MIDDLEWARE=_without_lane()):
        whole = Client()  # a client builds its middleware chain once: a new one, same cookie
        whole.cookies = client.cookies
        response = _post(whole, survey, _body())
    assert response.status_code == 201 and settings.SESSION_COOKIE_NAME in response.cookies


@override_settings(ALLOWED_HOSTS=["example.org"])
def test_hosts_are_still_checked(survey):
    response = _post(Client(), survey, _body())  # Host: testserver
    assert response.status_code == 400


def test_the_lane_runs_the_setting_s_middlewares(survey):
    """Taking X-Frame-Options' middleware out of the lean list takes its header off the
    submission only: the lane, not the whole stack, answered it."""
    lean = [
        m
        for m in settings.DENIABLE_RESPONDENT_API_MIDDLEWARE
        if m != "django.middleware.clickjacking.XFrameOptionsMiddleware"
    ]
    with override_settings(DENIABLE_RESPONDENT_API_MIDDLEWARE=lean):
        client = Client()
        assert "X-Frame-Options" not in _post(client, survey, _body())
        assert client.get("/healthz")["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("slug", ["demo", "a-b_c9", "x" * 60])
def test_the_lane_resolves_a_submission_as_the_whole_urlconf_does(slug):
    from django.urls import get_resolver

    from deniable.respondent_lane import lane_resolver

    path = reverse("api-survey-responses", kwargs={"slug": slug})
    ours, whole = lane_resolver().resolve(path), get_resolver().resolve(path)
    for attr in ("func", "args", "kwargs", "url_name", "route", "app_names", "namespaces",
                 "captured_kwargs", "extra_kwargs", "view_name"):  # fmt: skip
        assert getattr(ours, attr) == getattr(whole, attr), attr


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["a.b", "caf%C3%A9"])
def test_a_slug_the_route_refuses_gets_the_whole_stacks_answer(slug):
    """The lane's pattern takes any segment; its resolver refuses what ``<slug:…>`` refuses and
    the whole URLconf answers, as it did before the lane had its own resolver."""
    from deniable.respondent_lane import lane_resolver

    path = f"/api/v1/surveys/{slug}/responses/"
    with pytest.raises(Resolver404):
        lane_resolver().resolve(path)
    body = json.dumps({"submission_id": new_id(), "randomizer": "browser", "answers": {}})
    lane = Client().post(path, body, content_type="application/json")
    with override_settings(MIDDLEWARE=_without_lane()):
        whole = Client().post(path, body, content_type="application/json")
    assert lane.status_code == whole.status_code == 404
    assert lane.content == whole.content


def test_the_lane_resolver_is_built_under_a_script_prefix():
    """A deployment under a prefix (``FORCE_SCRIPT_NAME``): the resolver sees paths without it."""
    from django.urls import get_script_prefix, set_script_prefix

    from deniable.respondent_lane import lane_resolver

    old = get_script_prefix()
    set_script_prefix("/pfx/")
    try:
        match = lane_resolver().resolve("/api/v1/surveys/demo/responses/")
    finally:
        set_script_prefix(old)
    assert match.kwargs == {"slug": "demo"} and match.url_name == "api-survey-responses"
