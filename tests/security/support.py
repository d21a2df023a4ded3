"""Helpers for the security tests: the world's passwords and question set, form and API
answers, the :class:`World` the ``world`` fixture builds, URLconf walking, HTML parsing and the
production settings."""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from types import ModuleType
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

from privacy.models import Release
from surveys.models import Survey
from testsupport.factories import PHYSICAL_QUESTIONS, physical_answers

# Every kind that the no-JavaScript form can collect with physical coins.
QUESTIONS: list[dict[str, Any]] = PHYSICAL_QUESTIONS
PASSWORD_A = "alice-secure-pw-2024"
PASSWORD_B = "bob-secure-pw-2024"


def physical_post(**overrides: str) -> dict[str, str]:
    data = {"q-cheated": "yes", "q-region": "North", "q-hours": "34"}
    data.update(overrides)
    return data


api_answers = physical_answers


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
    # A's team on ``survey`` (docs/teams.md#roles); carol is on no team (a username to share with).
    viewer: Any = None
    editor: Any = None
    carol: Any = None


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
