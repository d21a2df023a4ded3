"""Every language's innocuous statement of a crosswise question, each checked against the library
(issue 21.9; docs/researcher-guide.md#crosswise-statements).

The crosswise model's ε and estimate rest on the innocuous statement being true for about p of
the people who read it, and on the researcher not being able to learn it. A statement is written
per language, so a translation can quietly swap the vetted statement for one that is true for
everyone (then SAME/DIFFERENT *is* the sensitive answer). The dashboard, the export metadata, the
reports export and the builder therefore list every language's statement and mark as
**unverified** any that is not a statement of
:data:`surveys.definitions.innocuous.INNOCUOUS_STATEMENTS` in
that language with its source prevalence.

Respondents are not counted per language: a submission does not record the language it was
answered in (it would help single a respondent out), so the published respondent count covers
all languages together (:data:`RESPONDENTS_BY_LANGUAGE_NOTE`).
"""

from __future__ import annotations

import math
from typing import Any, Final

from surveys.definitions import translations
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from surveys.kinds import kind_of

#: Why there is no per-language respondent count (export metadata and dashboard).
RESPONDENTS_BY_LANGUAGE_NOTE: Final = (
    "Respondents are not counted per language: a response does not record the language it was "
    "given in (that would help single a respondent out). The respondent count covers every "
    "language together."
)

#: Prevalences equal up to float noise (the builder sends back the library's value as typed).
_PREVALENCE_TOLERANCE: Final = 1e-9


def _normal(text: str) -> str:
    """Spacing and case do not change a statement."""
    return " ".join(text.split()).casefold()


def statement_check(*, text: str | None, language: str, prevalence: float | None) -> dict[str, Any]:
    """Whether ``text`` is a library statement in ``language`` with the library's prevalence:
    ``{"verified", "library_id", "source", "library_prevalence", "reason"}``."""
    wanted = _normal(text or "")
    entry = next(
        (s for s in INNOCUOUS_STATEMENTS if _normal(s["texts"].get(language, "")) == wanted),
        None,
    )
    if entry is None:
        return {
            "verified": False,
            "library_id": None,
            "source": None,
            "library_prevalence": None,
            "reason": "Not a statement of the built-in library in this language: its prevalence "
            "and the protection it gives are the researcher's claim, not checked.",
        }
    library_p = float(entry["prevalence"])
    out = {
        "library_id": entry["id"],
        "source": entry["source"],
        "library_prevalence": library_p,
    }
    if prevalence is None or not math.isclose(
        float(prevalence), library_p, rel_tol=0.0, abs_tol=_PREVALENCE_TOLERANCE
    ):
        return {
            **out,
            "verified": False,
            "reason": f"A library statement, but the design uses prevalence {prevalence!r} "
            f"where its source gives {library_p:.3f}.",
        }
    return {**out, "verified": True, "reason": f"Library statement; source: {entry['source']}."}


def crosswise_statements(survey: Any, question: Any) -> list[dict[str, Any]]:
    """The question's statement in each of the survey's languages (default first), each with
    its language name and :func:`statement_check`."""
    spec = question.design or {}
    prevalence = spec.get("innocuous_prevalence")
    names = translations.known_languages()
    out = []
    for language in translations.survey_languages(survey):
        words = translations.localized(survey, [question], language).question(question)
        text = words.innocuous_text or ""
        out.append(
            {
                "language": language,
                "language_name": names.get(language, language),
                "text": text,
                **statement_check(text=text, language=language, prevalence=prevalence),
            }
        )
    return out


def is_crosswise(question: Any) -> bool:
    """A question answered with a second (innocuous) statement (its kind is ``paired``)."""
    return kind_of(question).paired
