"""A survey's content in several languages (docs/translations.md).

A survey declares ``languages`` (the first is the default: the language its own title, questions
and options are written in) and, for every other language, a complete ``translations`` entry::

    {lang: {"title", "description", "questions": {key: {"text", "options": {option: label},
                                                        "innocuous_text"}}}}

Only words are translated: stored option values never change (a report is the option value, in
every language), so estimates, exports and tallies know nothing of languages.

Pure functions: :func:`translation_errors` is the one copy of the completeness rule (the input
serializer and ``survey_update`` call it), :func:`localized` gives a page the words of one
language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from django.conf import settings

# The longest translated title is the title's own limit (the model's column): one copy, in specs.
from surveys.definitions.specs import TITLE_MAX
from surveys.kinds import kind_of

if TYPE_CHECKING:
    from surveys.kinds.base import QuestionLike

#: Longest description, question text or other translated string (originals and translations).
TEXT_MAX = 10_000

#: Right-to-left languages among the known ones (``<html dir="rtl">``).
RTL_LANGUAGES = frozenset({"ar", "he", "fa", "ur"})


def known_languages() -> dict[str, str]:
    """The language codes a survey may declare, with their names: ``settings.LANGUAGES``."""
    return {code: str(name) for code, name in settings.LANGUAGES}


class _QuestionLike(Protocol):
    key: str
    text: str
    kind: str

    @property
    def options(self) -> Any: ...

    @property
    def design(self) -> Any: ...


def _innocuous(q: _QuestionLike) -> bool:
    """The question's design carries an innocuous statement, translated with the survey (its
    kind's ``translated_design_fields``); an unknown kind is refused elsewhere."""
    try:
        # Frozen inputs qualify too: the registry only reads the kind and the design.
        kind = kind_of(cast("QuestionLike", q))
    except LookupError:
        return False
    return "innocuous_text" in kind.translated_design_fields


def _text_error(value: Any, limit: int) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "Required: a non-empty string."
    if len(value) > limit:
        return f"At most {limit} characters."
    return None


def languages_errors(languages: Any) -> list[str]:
    """Why ``languages`` is refused (empty: fine)."""
    if not isinstance(languages, list):
        return ["Give a list of language codes, the default first."]
    known = known_languages()
    unknown = [str(c) for c in languages if not isinstance(c, str) or c not in known]
    if unknown:
        return [f"Unknown language code(s): {', '.join(unknown)}. Known: {', '.join(known)}."]
    if len(set(languages)) != len(languages):
        return ["Each language may appear once."]
    return []


def translation_errors(
    *,
    languages: Sequence[str],
    translations: Any,
    description: str,
    questions: Iterable[_QuestionLike],
) -> dict[str, list[str]]:
    """Every missing or unexpected field of ``translations``, by its path
    (``translations.es.questions.q1.options.Often``); empty when complete.

    Every language after the first needs the title, the description (when the survey has one),
    each question's text, each option's label (choice, category, multi) and a crosswise design's
    second statement; nothing else is accepted (a stray key is a typo that would silently show
    the default language).
    """
    errors: dict[str, list[str]] = {}

    def add(path: str, message: str) -> None:
        errors.setdefault(path, []).append(message)

    if not isinstance(translations, Mapping):
        return {"translations": ["Give an object: {language: {title, description, questions}}."]}
    others = list(languages[1:])
    for lang in translations:
        if lang not in others:
            why = "the default language" if languages and lang == languages[0] else "not listed"
            add(f"translations.{lang}", f"Not a translation language ({why} in languages).")
    questions = list(questions)
    for lang in others:
        _entry_errors(translations.get(lang), f"translations.{lang}", description, questions, add)
    return errors


def _entry_errors(
    entry: Any, base: str, description: str, questions: list[_QuestionLike], add: Any
) -> None:
    if not isinstance(entry, Mapping):
        add(base, "Missing: every language after the first needs a complete translation.")
        return
    for extra in sorted(set(entry) - {"title", "description", "questions"}):
        add(f"{base}.{extra}", "Unknown field.")
    if (message := _text_error(entry.get("title"), TITLE_MAX)) is not None:
        add(f"{base}.title", message)
    _description_errors(entry.get("description"), f"{base}.description", description, add)
    given = entry.get("questions")
    if not isinstance(given, Mapping):
        if questions:
            add(f"{base}.questions", "Missing: translate every question.")
        return
    keys = {q.key for q in questions}
    for key in sorted(set(given) - keys):
        add(f"{base}.questions.{key}", "No question has this key.")
    for q in questions:
        _question_errors(q, given.get(q.key), f"{base}.questions.{q.key}", add)


def _description_errors(value: Any, path: str, description: str, add: Any) -> None:
    if description.strip():
        if (message := _text_error(value, TEXT_MAX)) is not None:
            add(path, message)
    elif value not in (None, ""):
        add(path, "The survey has no description to translate.")


def _question_errors(q: _QuestionLike, entry: Any, path: str, add: Any) -> None:
    if not isinstance(entry, Mapping):
        add(path, "Missing: translate this question.")
        return
    allowed = {"text"} | ({"options"} if q.options else set())
    allowed |= {"innocuous_text"} if _innocuous(q) else set()
    for extra in sorted(set(entry) - allowed):
        add(f"{path}.{extra}", "Unknown field for this question.")
    if (message := _text_error(entry.get("text"), TEXT_MAX)) is not None:
        add(f"{path}.text", message)
    if _innocuous(q) and (message := _text_error(entry.get("innocuous_text"), TEXT_MAX)):
        add(f"{path}.innocuous_text", message)
    if not q.options:
        return
    labels = entry.get("options")
    if not isinstance(labels, Mapping):
        add(f"{path}.options", "Missing: give a label for every option ({option: label}).")
        return
    for extra in sorted(set(labels) - set(q.options)):
        add(
            f"{path}.options.{extra}",
            "Not an option of this question (options are keyed by their stored value).",
        )
    for option in q.options:
        if (message := _text_error(labels.get(option), TEXT_MAX)) is not None:
            add(f"{path}.options.{option}", message)


# --- reading: one language's words ---------------------------------------------------------------


@dataclass(frozen=True)
class QuestionWords:
    """A question's words in one language; ``labels`` maps every stored option to its label."""

    text: str
    labels: Mapping[str, str] = field(default_factory=dict)
    innocuous_text: str | None = None


@dataclass(frozen=True)
class SurveyWords:
    language: str
    title: str
    description: str
    questions: Mapping[str, QuestionWords]

    def question(self, q: _QuestionLike) -> QuestionWords:
        return self.questions.get(q.key) or QuestionWords(q.text, {o: o for o in q.options or []})


def survey_languages(survey: Any) -> list[str]:
    """The survey's languages; a survey that declares none is in the site's default language."""
    return list(survey.languages or []) or [default_language()]


def default_language() -> str:
    return str(settings.LANGUAGE_CODE).split("-")[0]


def localized(survey: Any, questions: Iterable[_QuestionLike], language: str) -> SurveyWords:
    """The survey's words in ``language`` (its own words for the default or an unknown one)."""
    questions = list(questions)
    entry = (survey.translations or {}).get(language)
    default = survey_languages(survey)[0]
    if language == default or not isinstance(entry, Mapping):
        return SurveyWords(
            default,
            survey.title,
            survey.description,
            {
                q.key: QuestionWords(
                    q.text,
                    {o: o for o in q.options or []},
                    (q.design or {}).get("innocuous_text") if _innocuous(q) else None,
                )
                for q in questions
            },
        )
    given = entry.get("questions") or {}
    words = {}
    for q in questions:
        t = given.get(q.key) or {}
        labels = t.get("options") or {}
        words[q.key] = QuestionWords(
            t.get("text") or q.text,
            {o: labels.get(o) or o for o in q.options or []},
            (t.get("innocuous_text") or (q.design or {}).get("innocuous_text"))
            if _innocuous(q)
            else None,
        )
    return SurveyWords(
        language,
        entry.get("title") or survey.title,
        entry.get("description") or survey.description,
        words,
    )


# --- choosing the respondent's language ----------------------------------------------------------


def _match(code: str, offered: Sequence[str]) -> str | None:
    code = code.lower()
    if code in offered:
        return code
    generic = code.split("-")[0]
    return generic if generic in offered else None


def choose_language(offered: Sequence[str], *, wanted: str = "", accepted: str = "") -> str:
    """The respondent's language among the survey's ``offered`` ones (default first): the
    switcher's ``wanted`` (``?lang=``) if offered, else the first ``Accept-Language`` entry the
    survey has (``es-MX`` matches ``es``), else the survey's default."""
    from django.utils.translation.trans_real import parse_accept_lang_header

    if wanted and wanted in offered:
        return wanted
    for code, _quality in parse_accept_lang_header(accepted or ""):
        if code != "*" and (found := _match(code, offered)) is not None:
            return found
    return offered[0]


def is_rtl(language: str) -> bool:
    return language.split("-")[0] in RTL_LANGUAGES
