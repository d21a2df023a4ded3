"""Which language a request is answered in (docs/translations.md#choice).

Respondent pages and the respondent endpoints (``/s/…``, the responses and invitation-check
API) go through Django's :class:`~django.middleware.locale.LocaleMiddleware`: ``Accept-Language``
against ``settings.LANGUAGES``, and ``Content-Language`` / ``Vary`` on the response; the view then
narrows the choice to the survey's own languages (``surveys.pages.views``). Researcher pages and the
rest of the API stay in ``LANGUAGE_CODE``: their messages are part of the API contract and are
written in English only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers

_RESPONDENT = re.compile(r"^/(s/|api/v1/surveys/[^/]+/(responses|invitations/check)/$)")


def is_respondent_path(path: str) -> bool:
    return bool(_RESPONDENT.match(path))


# Longer keys are negotiated afresh each time (by Django's own code), so the memo's keys stay
# small whatever a sender puts in them.
_MEMO_KEY_MAX = 500


@lru_cache(maxsize=512)
def _negotiated(cookie: str | None, accept: str) -> str:
    """Django's own ``get_language_from_request`` (no language in the path), memoized: it is a
    function of the language cookie and ``Accept-Language`` alone, and negotiating it on every
    respondent request was ≈ 7 % of a submission's CPU under load (bench/RESULTS.md §10,
    round 13). Cleared with the settings it reads (below); not when a catalogue is added to a
    running process, which matters only for a listed language with no catalogue at all (Django
    ships one for each language in ``settings.LANGUAGES``)."""
    cookies = {} if cookie is None else {settings.LANGUAGE_COOKIE_NAME: cookie}
    request: Any = SimpleNamespace(COOKIES=cookies, META={"HTTP_ACCEPT_LANGUAGE": accept})
    return translation.get_language_from_request(request, check_path=False)


@receiver(setting_changed)
def _forget_negotiated(*, setting: str, **kwargs: Any) -> None:
    # As Django clears its own language caches (tests that override the languages).
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "LANGUAGE_COOKIE_NAME"}:
        _negotiated.cache_clear()


def _no_language_prefixes(request: HttpRequest) -> bool:
    urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
    return not is_language_prefix_patterns_used(urlconf)[0]


class RespondentLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if is_respondent_path(request.path_info):
            self._negotiate(request)
            # The page's language switcher (and the page's own requests) say ?lang=…: a query
            # parameter, not a cookie, because respondent pages set no cookie at all.
            wanted = request.GET.get("lang", "")
            if wanted in dict(settings.LANGUAGES):
                translation.activate(wanted)
                request.LANGUAGE_CODE = wanted
            return
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if not is_respondent_path(request.path_info):
            return response
        if _no_language_prefixes(request):
            # What LocaleMiddleware.process_response does when no URL carries a language.
            patch_vary_headers(response, ("Accept-Language",))
            response.headers.setdefault("Content-Language", translation.get_language())
            return response
        return super().process_response(request, response)

    def _negotiate(self, request: HttpRequest) -> None:
        """LocaleMiddleware.process_request, with the negotiation memoized when no URL carries
        a language (this project's URLconf; with language prefixes, Django's own code runs)."""
        cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        accept = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
        if not _no_language_prefixes(request) or len(accept) + len(cookie or "") > _MEMO_KEY_MAX:
            super().process_request(request)
            return
        translation.activate(_negotiated(cookie, accept))
        request.LANGUAGE_CODE = translation.get_language()
