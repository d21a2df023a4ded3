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

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

_RESPONDENT = re.compile(r"^/(s/|api/v1/surveys/[^/]+/(responses|invitations/check)/$)")


def is_respondent_path(path: str) -> bool:
    return bool(_RESPONDENT.match(path))


class RespondentLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if is_respondent_path(request.path_info):
            super().process_request(request)
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
        return super().process_response(request, response)
