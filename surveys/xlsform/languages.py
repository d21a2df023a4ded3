"""Languages of an XLSForm: ``label::Español (es)`` columns and ``default_language``.

A column is a *base* (``label``, ``hint``, ``deniable::innocuous``…) and optionally a language
after ``::``, written ``<Name> (<code>)`` as Kobo and ODK write it (the name alone works for the
languages the site knows). The plain column is the default language's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings
from django.conf.locale import LANG_INFO

from surveys.xlsform.reader import Sheet

_CODED = re.compile(r"^(?P<name>.*?)\s*\((?P<code>[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)\)\s*$")


def language_code(text: str) -> str | None:
    """``"Español (es)"`` → ``"es"``; ``"Spanish"`` → ``"es"`` when the site knows the name."""
    match = _CODED.match(text.strip())
    if match:
        return match["code"].lower().replace("_", "-")
    wanted = text.strip().lower()
    for code, name in settings.LANGUAGES:
        info = LANG_INFO.get(code, {})
        names = {str(name).lower(), str(info.get("name", "")).lower()}
        if wanted in names | {str(info.get("name_local", "")).lower()}:
            return code
    return None


def language_label(code: str) -> str:
    """How the export names a language: ``Español (es)`` (its own name, as respondents read)."""
    name = str(LANG_INFO.get(code, {}).get("name_local") or code)
    return f"{name[:1].upper()}{name[1:]} ({code})"


def split_column(column: str, bases: tuple[str, ...]) -> tuple[str, str | None]:
    """(base, language text or None) for a translatable base; else (column, None)."""
    for base in bases:
        if column.lower() == base:
            return base, None
        if column.lower().startswith(base + "::"):
            return base, column[len(base) + 2 :].strip()
    return column, None


@dataclass
class Languages:
    """The form's languages: the default first; ``columns[(sheet, base, code)]`` → column."""

    default: str | None = None
    order: list[str] = field(default_factory=list)
    columns: dict[tuple[str, str, str], str] = field(default_factory=dict)
    plain: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def codes(self) -> list[str]:
        """The survey's ``languages`` (empty: one language, the site's default)."""
        return self.order

    def column(self, sheet: str, base: str, code: str | None) -> str | None:
        """The column holding ``base`` in language ``code`` (None: the default's)."""
        if code is None or code == self.default:
            tagged = self.columns.get((sheet, base, self.default or ""))
            return tagged or self.plain.get((sheet, base))
        return self.columns.get((sheet, base, code))


def find_languages(
    sheets: dict[str, Sheet],
    bases: dict[str, tuple[str, ...]],
    default_text: str | None,
    default_ref: str,
    errors: dict[str, list[str]],
) -> Languages:
    """Every language the columns name, the default first; problems by header cell."""
    found = Languages()
    if default_text:
        found.default = language_code(default_text)
        if found.default is None:
            errors.setdefault(default_ref, []).append(_UNKNOWN_LANGUAGE.format(default_text))
    seen: list[str] = []
    for sheet_name, sheet_bases in bases.items():
        sheet = sheets.get(sheet_name)
        if sheet is not None:
            _scan(sheet, sheet_bases, found, seen, errors)
    if not seen and found.default is None:
        return found  # one unnamed language: the survey's languages stay empty
    if found.default is None:
        if any(key[1] == "label" for key in found.plain):
            errors.setdefault(default_ref, []).append(
                "The plain label column's language is unknown: set default_language "
                "(e.g. English (en)) or write it as label::English (en)."
            )
        found.default = seen[0]
    found.order = [found.default, *[code for code in seen if code != found.default]]
    return found


def _scan(
    sheet: Sheet,
    bases: tuple[str, ...],
    found: Languages,
    seen: list[str],
    errors: dict[str, list[str]],
) -> None:
    for column in sheet.columns:
        base, text = split_column(column, bases)
        if base not in bases:
            continue
        if text is None:
            found.plain[(sheet.name, base)] = column
            continue
        code = language_code(text)
        if code is None:
            errors.setdefault(sheet.ref(column, 1), []).append(_UNKNOWN_LANGUAGE.format(text))
            continue
        found.columns[(sheet.name, base, code)] = column
        if code not in seen:
            seen.append(code)


_UNKNOWN_LANGUAGE = (
    "Unknown language {!r}: write its name and code in brackets, e.g. English (en) or Español (es)."
)
