"""Fixtures for the security tests: two researchers, A's surveys (open, draft, invite-only) with
submissions and a finished release, and helpers to walk the URLconf and parse pages."""

from __future__ import annotations

import importlib
import os
import re
import sys
import uuid
from dataclasses import dataclass
from html.parser import HTMLParser
from types import ModuleType
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token

from privacy.models import Release
from privacy.services import release_run
from surveys.models import Survey
from surveys.services import survey_open
from tests.boundary import release_request, submission_create, survey_create

# Every kind that the no-JavaScript form can collect with physical coins.
QUESTIONS: list[dict[str, Any]] = [
    {"key": "cheated", "text": "Have you ever cheated?", "kind": "yes_no"},
    {"key": "region", "text": "Region", "kind": "category", "options": ["North", "South"]},
    {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
]
PASSWORD_A = "alice-secure-pw-2024"
PASSWORD_B = "bob-secure-pw-2024"


def physical_post(**overrides: str) -> dict[str, str]:
    data = {"q-cheated": "yes", "q-region": "North", "q-hours": "34"}
    data.update(overrides)
    return data


def api_answers(**overrides: Any) -> dict[str, Any]:
    answers: dict[str, Any] = {"cheated": True, "region": "North", "hours": 20}
    answers.update(overrides)
    return answers


@dataclass
class World:
    alice: Any
    bob: Any
    token_a: str
    token_b: str
    survey: Survey  # A's, open, with submissions and a done release
    draft: Survey  # A's, draft
    invite: Survey  # A's, invite-only, open
    release: Release  # A's, done
    bob_survey: Survey


def make_survey(owner: Any, *, title: str, access: str = "open", open_: bool = True) -> Survey:
    survey = survey_create(
        owner=owner, data={"title": title, "access": access, "questions": QUESTIONS}
    )
    if open_:
        survey_open(survey=survey)
    return Survey.objects.get(pk=survey.pk)


@pytest.fixture
def world(db) -> World:
    User = get_user_model()
    alice = User.objects.create_user("alice", password=PASSWORD_A)
    bob = User.objects.create_user("bob", password=PASSWORD_B)
    survey = make_survey(alice, title="Alice secret survey")
    for i in range(30):
        submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers=api_answers(cheated=i % 2 == 0, hours=i),
        )
    release, _ = release_request(
        survey=survey, user=alice, data={"mechanism": "laplace", "epsilon": 0.5}
    )
    # The task is enqueued on commit, which a test transaction never reaches: run it here.
    release_run(release_id=str(release.pk))
    release.refresh_from_db()
    assert release.status == Release.Status.DONE
    return World(
        alice=alice,
        bob=bob,
        token_a=Token.objects.create(user=alice).key,
        token_b=Token.objects.create(user=bob).key,
        survey=survey,
        draft=make_survey(alice, title="Alice draft survey", open_=False),
        invite=make_survey(alice, title="Alice invite survey", access="invite"),
        release=release,
        bob_survey=make_survey(bob, title="Bob survey"),
    )


# --- URLconf walking -----------------------------------------------------------------------------

PARAM_RE = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<parameter>[^>]+)>")


@dataclass(frozen=True)
class Route:
    route: str  # e.g. "api/v1/surveys/<slug:slug>/open/"
    name: str | None
    namespace: str | None
    callback: Any
    is_regex: bool

    @property
    def params(self) -> list[str]:
        return [m.group("parameter") for m in PARAM_RE.finditer(self.route)]

    def url(self, values: dict[str, str]) -> str:
        def fill(m: re.Match[str]) -> str:
            name = m.group("parameter")
            if name not in values:
                raise KeyError(
                    f"{self.route}: no test value for URL parameter <{name}>; add one to the "
                    "security tests' fillers (and make sure the view checks ownership)"
                )
            return values[name]

        return "/" + PARAM_RE.sub(fill, self.route)


def walk_urlconf() -> list[Route]:
    """Every URL pattern of the project, flattened with its full route."""
    out: list[Route] = []

    def walk(patterns: list[Any], prefix: str, namespace: str | None, regex: bool) -> None:
        for p in patterns:
            part = str(p.pattern)
            is_regex = regex or type(p.pattern).__name__ == "RegexPattern"
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + part, p.namespace or namespace, is_regex)
            elif isinstance(p, URLPattern):
                out.append(Route(prefix + part, p.name, namespace, p.callback, is_regex))

    walk(get_resolver().url_patterns, "", None, False)
    return out


# --- HTML parsing --------------------------------------------------------------------------------


class PageParser(HTMLParser):
    """Collects every element's attributes, and the text of inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.inline_styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "style" and data.strip():
            self.inline_styles.append(data)


def parse_html(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


# --- production settings -------------------------------------------------------------------------

PROD_SECRET = "test-only-" + "k" * 60


def load_prod_settings(**env: str) -> ModuleType:
    """``deniable.settings.prod`` imported fresh with a secret key (and any extra environment),
    without touching the running settings."""
    saved = dict(os.environ)
    os.environ["DJANGO_SECRET_KEY"] = PROD_SECRET
    os.environ.update(env)
    try:
        sys.modules.pop("deniable.settings.prod", None)
        return importlib.import_module("deniable.settings.prod")
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sys.modules.pop("deniable.settings.prod", None)


def prod_security_overrides() -> dict[str, Any]:
    """The production values of every HTTPS/cookie/header setting, for ``override_settings``."""
    prod = load_prod_settings()
    names = [
        n
        for n in dir(prod)
        if n.startswith(("SECURE_", "SESSION_COOKIE_", "CSRF_COOKIE_"))
        or n in ("X_FRAME_OPTIONS", "CONTENT_SECURITY_POLICY", "DEBUG")
    ]
    return {n: getattr(prod, n) for n in names}
