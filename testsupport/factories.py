"""The one place that builds test and benchmark data: users, surveys and their questions,
submissions, invitations and releases.

Everything goes through the product's own write path as a caller outside HTTP goes through it:
the input serializer (``surveys.inputs`` / ``privacy.inputs``, the one validator, raising
``InvalidInput`` with the API's field paths), then the typed service (``survey_create``,
``submission_create``, ``release_request`` …); never through model constructors, so a fixture
can never hold a state the product could not reach, and a test's assertion about a refusal
exercises the same rules the API and the pages apply. The conftest fixtures of ``tests/`` are thin
wrappers over these functions; ``bench/`` builds its survey here too.

The raw-body write paths (:func:`survey_create`, :func:`survey_update`,
:func:`submission_create`, :func:`invitations_create`, :func:`release_plan`,
:func:`release_request`, :func:`release_preview`) take the body a client sends; the ``make_*``
builders and :func:`submit` add defaults on top of them.

Question sets (the answers that go with each are beside them):

* :data:`FULL_SURVEY` / :func:`full_answers`: every kind and a local design of each family
  (the survey API and service tests);
* :data:`RELEASE_QUESTIONS` / :func:`release_answer`: the release and budget tests;
* :data:`PHYSICAL_QUESTIONS` / :func:`physical_answers`: the kinds the no-JavaScript form can
  collect with physical coins (the security tests).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from typing import Any

DEFAULT_PASSWORD = "pw-123456789"

FULL_SURVEY: dict[str, Any] = {
    "title": "Every kind",
    "description": "test",
    "questions": [
        {"key": "coin", "text": "Coin question?", "kind": "yes_no"},
        {
            "key": "mirror",
            "text": "Warner question?",
            "kind": "yes_no",
            "design": {"name": "warner", "p": 0.75},
        },
        {
            "key": "party",
            "text": "Which party?",
            "kind": "choice",
            "options": ["a", "b", "c", "d"],
            "design": {"name": "k_rr", "epsilon": 1.0},
        },
        # Optional (issue 16): the selector, tally and export tests leave them unanswered.
        {
            "key": "age",
            "text": "Age group",
            "kind": "category",
            "options": ["young", "old"],
            "required": False,
        },
        {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80, "required": False},
    ],
}

RELEASE_QUESTIONS: list[dict[str, Any]] = [
    {"key": "cheated", "text": "Did you cheat?", "kind": "yes_no"},
    {
        "key": "drug",
        "text": "Which one?",
        "kind": "choice",
        "options": ["none", "cannabis", "other"],
    },
    {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south"]},
    {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 99},
]

PHYSICAL_QUESTIONS: list[dict[str, Any]] = [
    {"key": "cheated", "text": "Have you ever cheated?", "kind": "yes_no"},
    {"key": "region", "text": "Region", "kind": "category", "options": ["North", "South"]},
    {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
]


# --- bodies and answers ----------------------------------------------------------------------


def new_id() -> str:
    """A fresh submission id (the client generates these in production)."""
    return str(uuid.uuid4())


def survey_body(**overrides: Any) -> dict[str, Any]:
    """A deep copy of :data:`FULL_SURVEY` with top-level fields replaced."""
    body = copy.deepcopy(FULL_SURVEY)
    body.update(overrides)
    return body


def full_answers(**overrides: Any) -> dict[str, Any]:
    """A valid reported answer to every question of :data:`FULL_SURVEY`."""
    answers: dict[str, Any] = {
        "coin": True,
        "mirror": False,
        "party": "b",
        "age": "young",
        "hours": 12.5,
    }
    answers.update(overrides)
    return answers


def release_answer(i: int) -> dict[str, Any]:
    """Respondent ``i``'s answer to :data:`RELEASE_QUESTIONS` (deterministic, all values used)."""
    return {
        "cheated": i % 3 == 0,
        "drug": ["none", "cannabis", "other"][i % 3],
        "region": "north" if i % 2 else "south",
        "age": 20 + i % 50,
    }


def physical_answers(**overrides: Any) -> dict[str, Any]:
    """A valid API answer to :data:`PHYSICAL_QUESTIONS`."""
    answers: dict[str, Any] = {"cheated": True, "region": "North", "hours": 20}
    answers.update(overrides)
    return answers


# --- the write paths: input serializer, then typed service ----------------------------------


def survey_create(*, owner: Any, data: Any, slug: str | None = None) -> Any:
    """A draft survey from the raw body ``data`` (``surveys.inputs.survey_spec``)."""
    from surveys import inputs, services

    kwargs = inputs.survey_spec(data).kwargs()
    if slug is not None:  # a fixture's slug (the body's own "slug" otherwise)
        kwargs["slug"] = slug
    return services.survey_create(owner=owner, **kwargs)


def survey_update(*, survey: Any, data: Any) -> Any:
    from surveys import inputs, services

    return services.survey_update(survey=survey, changes=inputs.survey_changes(data))


def submission_create(*, survey: Any, **body: Any) -> Any:
    """``body``: the raw submission fields (``submission_id``, ``randomizer``, ``answers``,
    ``token``), as a client sends them; ``token=None`` is the same as no token."""
    from surveys import inputs, services

    questions = list(survey.questions.all())
    spec = inputs.submission_spec(questions=questions, data=body)
    return services.submission_create(survey=survey, **spec.kwargs())


def invitations_create(*, survey: Any, count: Any) -> list[str]:
    from surveys import inputs, services

    wanted = inputs.invitation_request({"count": count})
    return services.invitations_create(survey=survey, count=wanted.count)


def _release_spec(survey: Any, data: Any) -> Any:
    from privacy import inputs

    return inputs.release_spec(questions=list(survey.questions.all()), data=data)


def release_plan(*, survey: Any, data: Any) -> Any:
    from privacy import services

    return services.release_plan(survey=survey, spec=_release_spec(survey, data))


def release_request(*, survey: Any, user: Any, data: Any) -> tuple[Any, bool]:
    from privacy import services

    spec = _release_spec(survey, data)
    return services.release_request(survey=survey, user=user, spec=spec)


def release_preview(*, survey: Any, data: Any) -> dict[str, Any]:
    from privacy import services

    return services.release_preview(survey=survey, spec=_release_spec(survey, data))


# --- users -----------------------------------------------------------------------------------


def make_user(username: str = "alice", password: str = DEFAULT_PASSWORD) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=password)


def make_api_token(user: Any, name: str = "test", days: int | None = None) -> str:
    """A new API token's key for ``user`` (accounts.services.api_token_create)."""
    from accounts.services import api_token_create

    return api_token_create(user=user, name=name, expires_in_days=days).key


def api_client(user: Any) -> Any:
    """A DRF test client authenticated as ``user`` (``force_authenticate``: no password, no
    CSRF, no rate limit on logins)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def ensure_user(username: str, password: str) -> Any:
    """The user ``username`` (created if missing) with ``password`` set: for tests whose server
    and browser share the database and may meet the same name twice."""
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(password)
    user.save()
    return user


# --- surveys ---------------------------------------------------------------------------------


def make_survey(
    owner: Any, body: dict[str, Any] | None = None, *, open_: bool = True, slug: str | None = None
) -> Any:
    """:func:`survey_create` (``body`` defaults to :func:`survey_body`), then ``survey_open``
    unless ``open_`` is false; returns the created object (its status updated in memory by the
    open)."""
    from surveys.services import survey_open

    survey = survey_create(owner=owner, data=survey_body() if body is None else body, slug=slug)
    if open_:
        survey_open(survey=survey)
    return survey


def reload(survey: Any) -> Any:
    """The survey read back from the database (a new object)."""
    from surveys.models import Survey

    return Survey.objects.get(pk=survey.pk)


def make_campus_survey(
    questions: list[dict[str, Any]],
    *,
    username: str = "alice",
    password: str | None = None,
    budget: dict[str, float] | None = None,
) -> Any:
    """An open survey titled "Campus life" of ``questions``, owned by ``username`` (made or
    reset by :func:`ensure_user`, password ``pw-<username>-123`` unless given)."""
    owner = ensure_user(username, password or f"pw-{username}-123")
    body: dict[str, Any] = {"title": "Campus life", "questions": questions}
    if budget is not None:
        body["budget"] = budget
    return make_survey(owner, body)


def make_physical_survey(
    owner: Any, *, title: str, access: str = "open", open_: bool = True
) -> Any:
    """A survey of :data:`PHYSICAL_QUESTIONS` (open unless ``open_`` is false)."""
    body = {"title": title, "access": access, "questions": PHYSICAL_QUESTIONS}
    return reload(make_survey(owner, body, open_=open_))


def make_release_survey(
    owner: Any, *, epsilon: float = 1.0, delta: float = 1e-6, respondents: int = 40
) -> Any:
    """An open survey of :data:`RELEASE_QUESTIONS` with budget (ε, δ) and ``respondents``
    submissions (:func:`release_answer`)."""
    body = {
        "title": "Release test",
        "budget": {"epsilon": epsilon, "delta": delta},
        "questions": RELEASE_QUESTIONS,
    }
    survey = make_survey(owner, body)
    submit_many(survey, respondents, release_answer)
    return reload(survey)


# --- submissions and invitations -------------------------------------------------------------


def submit(survey: Any, answers: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """:func:`submission_create` with a fresh id and the browser randomizer unless given;
    ``answers`` defaults to :func:`full_answers`."""
    kwargs.setdefault("submission_id", new_id())
    kwargs.setdefault("randomizer", "browser")
    return submission_create(
        survey=survey, answers=full_answers() if answers is None else answers, **kwargs
    )


def submit_many(survey: Any, n: int, answer_of: Callable[[int], dict[str, Any]]) -> None:
    """``n`` submissions, respondent ``i`` answering ``answer_of(i)``."""
    for i in range(n):
        submit(survey, answer_of(i))


def make_invitations(survey: Any, count: int) -> list[str]:
    """``count`` one-time tokens of an invite-only survey."""
    return invitations_create(survey=survey, count=count)


# --- releases --------------------------------------------------------------------------------


def make_release(survey: Any, user: Any, data: dict[str, Any], *, run: bool = True) -> Any:
    """:func:`release_request` then, unless ``run`` is false, ``release_run`` in this process
    (the task is enqueued on commit, which a test transaction never reaches)."""
    from privacy.services import release_run

    release, _ = release_request(survey=survey, user=user, data=data)
    if run:
        release_run(release_id=str(release.pk))
        release.refresh_from_db()
    return release
