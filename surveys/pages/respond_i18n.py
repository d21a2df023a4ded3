"""The respondent pages' language: which one, the survey's words in it, the switcher.

The interface words are Django's catalogues (``locale/``; en and es are complete, any other
language falls back to English); the survey's own words come from its ``translations``
(:mod:`surveys.definitions.translations`). Both follow one choice, made here per request: the
switcher's
``?lang=``, else ``Accept-Language`` ∩ the survey's languages, else the survey's default
(docs/translations.md#choice).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from django.utils import translation

from surveys.definitions import translations
from surveys.models import Question, Survey


@dataclass(frozen=True)
class RespondentLanguage:
    code: str
    words: translations.SurveyWords
    questions: list[Question]  # copies with the chosen language's texts (values unchanged)
    labels: Mapping[str, Mapping[str, str]]  # key → option value → label
    offered: list[str]

    @property
    def query(self) -> str:
        """``?lang=…`` for the page's own links and requests (empty with one language)."""
        return "?" + urlencode({"lang": self.code}) if len(self.offered) > 1 else ""


def _localized_question(q: Question, words: translations.QuestionWords) -> Question:
    out = copy.copy(q)
    out.text = words.text
    if words.innocuous_text is not None:
        out.design = {**(q.design or {}), "innocuous_text": words.innocuous_text}
    return out


def activate(request: HttpRequest, survey: Survey, questions: list[Question]) -> RespondentLanguage:
    """Choose the language, activate it for this request (interface words, ``<html lang>``,
    ``Content-Language``) and return the survey's words in it."""
    offered = translations.survey_languages(survey)
    code = translations.choose_language(
        offered,
        wanted=request.GET.get("lang", ""),
        accepted=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
    )
    translation.activate(code)
    request.LANGUAGE_CODE = code
    words = translations.localized(survey, questions, code)
    localized = [_localized_question(q, words.question(q)) for q in questions]
    labels = {q.key: words.question(q).labels for q in questions}
    return RespondentLanguage(code, words, localized, labels, offered)


def switcher(request: HttpRequest, language: RespondentLanguage) -> list[dict[str, Any]]:
    """One link per offered language, in its own name; plain links, so no JavaScript needed.
    Other query parameters (an old ``?token=`` link) are kept."""
    if len(language.offered) < 2:
        return []
    out = []
    for code in language.offered:
        params = request.GET.copy()
        params["lang"] = code
        try:
            name = translation.get_language_info(code)["name_local"]
        except KeyError:
            name = code
        out.append(
            {
                "code": code,
                "name": name,
                "href": "?" + params.urlencode(),
                "current": code == language.code,
                "rtl": translations.is_rtl(code),
            }
        )
    return out
