"""deniable/locale.py: the memoized negotiation on respondent paths must choose exactly what
Django's LocaleMiddleware chooses, with the same response headers, whatever the request says
and after the languages change."""

from __future__ import annotations

import itertools

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.test import RequestFactory, override_settings
from django.utils import translation

from deniable.locale import _MEMO_KEY_MAX, RespondentLocaleMiddleware, _negotiated

ACCEPTS = [
    "",
    "es",
    "es-MX,es;q=0.9,en;q=0.8",
    "fr-CA",
    "zz, de;q=0.5",
    "*",
    "pt-BR;q=0.1, it;q=0.2",
    "en-GB, es;q=2",
    "x" * 30 + ",es",
    "garbage;;;q==",
    "ES",
    "es;q=0",
]
COOKIES = [None, "es", "de", "xx", "es-ar", ""]
PATHS = ["/s/demo/", "/api/v1/surveys/demo/responses/", "/api/v1/surveys/demo/invitations/check/"]


def _with(middleware_class: type, path: str, accept: str, cookie: str | None) -> tuple:
    request = RequestFactory().post(path, HTTP_ACCEPT_LANGUAGE=accept)
    if cookie is not None:
        request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = cookie
    with translation.override(None):
        middleware = middleware_class(lambda r: HttpResponse("ok"))
        middleware.process_request(request)
        chosen = request.LANGUAGE_CODE
        response = middleware.process_response(request, HttpResponse("ok"))
    return chosen, response.headers.get("Content-Language"), response.headers.get("Vary")


def _assert_same_as_django() -> None:
    for path, accept, cookie in itertools.product(PATHS, ACCEPTS, COOKIES):
        ours = _with(RespondentLocaleMiddleware, path, accept, cookie)
        # Twice: the second answer comes from the memo.
        assert _with(RespondentLocaleMiddleware, path, accept, cookie) == ours
        django = _with(LocaleMiddleware, path, accept, cookie)
        assert ours == django, (path, accept, cookie)


def test_respondent_paths_choose_what_django_chooses() -> None:
    _negotiated.cache_clear()
    _assert_same_as_django()
    assert _negotiated.cache_info().hits > 0  # the memo was used, not bypassed


def test_a_change_of_languages_is_not_answered_from_the_memo() -> None:
    _negotiated.cache_clear()
    assert _with(RespondentLocaleMiddleware, PATHS[1], "de", None)[0] == "de"
    with override_settings(LANGUAGES=[("en", "English"), ("es", "Spanish")]):
        assert _with(RespondentLocaleMiddleware, PATHS[1], "de", None)[0] == "en"
        _assert_same_as_django()
    assert _with(RespondentLocaleMiddleware, PATHS[1], "de", None)[0] == "de"


@pytest.mark.parametrize("accept", ["es," + "x" * _MEMO_KEY_MAX, "de;q=0.5," * 80])
def test_long_headers_are_negotiated_but_not_kept(accept: str) -> None:
    _negotiated.cache_clear()
    assert _with(RespondentLocaleMiddleware, PATHS[0], accept, None) == _with(
        LocaleMiddleware, PATHS[0], accept, None
    )
    assert _negotiated.cache_info().currsize == 0


def test_other_paths_stay_in_the_site_language_without_language_headers() -> None:
    chosen, content_language, vary = _with(RespondentLocaleMiddleware, "/surveys/", "es", "es")
    assert (chosen, content_language, vary) == (settings.LANGUAGE_CODE, None, None)


@pytest.mark.parametrize(
    ("query", "expected"),
    [("lang=es", "es"), ("lang=de", "de"), ("lang=zz", "en"), ("LANG=es", "en"), ("lang=", "en")],
)
def test_the_page_switcher_overrides_the_negotiated_language(query: str, expected: str) -> None:
    """``?lang=`` (the switcher's link) wins over Accept-Language when it names a listed
    language, on the memoized path as on Django's."""
    request = RequestFactory().get(f"{PATHS[0]}?{query}", HTTP_ACCEPT_LANGUAGE="en")
    with translation.override(None):
        middleware = RespondentLocaleMiddleware(lambda r: HttpResponse("ok"))
        middleware.process_request(request)
        response = middleware.process_response(request, HttpResponse("ok"))
    assert request.LANGUAGE_CODE == expected
    assert response.headers["Content-Language"] == expected
