"""The ``settings`` sheet: title, slug, default language, budget and Deniable's survey fields.

Only its first row is read (XLSForm has one). Columns of the form engines that Deniable has no
use for (``version``, ``instance_name``, ``style``…) are not read; an unknown ``deniable::``
column is a problem, so a typo never passes unnoticed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from surveys.xlsform.languages import Languages, split_column
from surveys.xlsform.parsed import Parsed
from surveys.xlsform.reader import Sheet

TITLE, SLUG, DEFAULT_LANGUAGE = "form_title", "form_id", "default_language"
EPSILON, DELTA = "deniable::budget_epsilon", "deniable::budget_delta"
#: Deniable's survey fields beyond XLSForm's (API name → column), and the translated ones.
FIELDS = {
    "access": "deniable::access",
    "planned_n": "deniable::planned_n",
    "response_cap": "deniable::response_cap",
}
NUMBERS = {EPSILON, DELTA, "deniable::planned_n", "deniable::response_cap"}
TRANSLATED = ("deniable::title", "deniable::description")


@dataclass
class Settings:
    """What the settings row says, and the cell of each field (for the validator's errors)."""

    values: dict[str, Any] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)  # code → title; description:code → …
    default_language: str | None = None
    default_ref: str = "settings!A1"
    sheet: Sheet | None = None

    def ref(self, column: str) -> str:
        if column in self.refs:
            return self.refs[column]
        return self.sheet.ref(column, 2) if self.sheet is not None else "settings!A1"

    def body(self, langs: Languages) -> dict[str, Any]:
        out: dict[str, Any] = {"title": self.values.get(TITLE, ""), "languages": langs.codes}
        description = self._word("deniable::description", langs.default, langs)
        if description:
            out["description"] = description
        if self.values.get(SLUG):
            out["slug"] = self.values[SLUG]
        budget = {
            name: self.values[column]
            for name, column in (("epsilon", EPSILON), ("delta", DELTA))
            if column in self.values
        }
        if budget:
            out["budget"] = budget
        for name, column in FIELDS.items():
            if column in self.values:
                out[name] = self.values[column]
        for code in langs.codes[1:]:
            # XLSForm has no translated title: without a deniable::title::<language> column
            # the title (and description) is shown as written in every language.
            for base, name, fallback in (
                ("deniable::title", code, out["title"]),
                ("deniable::description", f"description:{code}", description),
            ):
                if langs.column("settings", base, code) is None:
                    self.titles[name] = fallback or ""
                elif (words := self._word(base, code, langs)) is not None:
                    self.titles[name] = words
        return out

    def where(self, langs: Languages) -> dict[str, str]:
        out = {
            "title": self.ref(TITLE),
            "slug": self.ref(SLUG),
            "languages": self.default_ref,
            "budget": self.ref(EPSILON),
            "budget.epsilon": self.ref(EPSILON),
            "budget.delta": self.ref(DELTA),
            "description": self.ref(_column(langs, "deniable::description", None)),
            "": "settings!A1",
        }
        out.update({name: self.ref(column) for name, column in FIELDS.items()})
        for code in langs.codes[1:]:
            out[f"translations.{code}"] = self.ref(_column(langs, "deniable::title", code))
            out[f"translations.{code}.title"] = out[f"translations.{code}"]
            column = _column(langs, "deniable::description", code)
            out[f"translations.{code}.description"] = self.ref(column)
        return out

    def _word(self, base: str, code: str | None, langs: Languages) -> str | None:
        column = langs.column("settings", base, code)
        if base == "deniable::title" and (code is None or code == langs.default):
            return self.values.get(TITLE)
        return self.values.get(column) if column else None


def _column(langs: Languages, base: str, code: str | None) -> str:
    return langs.column("settings", base, code) or base


def parse_settings(sheet: Sheet | None, out: Parsed) -> Settings:
    """The settings row's values (numbers as numbers), problems by cell."""
    settings = Settings(sheet=sheet)
    if sheet is None or not sheet.rows:
        out.problem("settings!A1", "No settings sheet with a form_title: name the survey there.")
        return settings
    number, values = sheet.rows[0]
    for column, value in values.items():
        low = column.lower()
        ref = sheet.ref(column, number)
        base, _ = split_column(low, TRANSLATED)
        known = {TITLE, SLUG, DEFAULT_LANGUAGE, EPSILON, DELTA, *FIELDS.values()}
        if low.startswith("deniable::") and low not in known and base not in TRANSLATED:
            out.problem(ref, f"Unknown Deniable setting {column!r} (docs/xlsform.md#settings).")
            continue
        settings.refs[low] = ref
        settings.values[column if base in TRANSLATED else low] = _value(low, value, ref, out)
    for extra, _values in sheet.rows[1:]:
        out.problem(sheet.ref(TITLE, extra), "The settings sheet has one row of values.")
    if not settings.values.get(TITLE):
        out.problem(sheet.ref(TITLE, number), "Give the survey's title in form_title.")
    if DEFAULT_LANGUAGE in settings.values:
        settings.default_language = str(settings.values[DEFAULT_LANGUAGE])
        settings.default_ref = settings.refs[DEFAULT_LANGUAGE]
    return settings


def _value(column: str, value: Any, ref: str, out: Parsed) -> Any:
    if column not in NUMBERS:
        return str(value)
    try:
        number = float(value)
    except ValueError:
        out.problem(ref, f"{value!r} is not a number.")
        return None
    if not math.isfinite(number):
        out.problem(ref, f"{value!r} is not a finite number.")
        return None
    if column in (EPSILON, DELTA):
        return number
    if not number.is_integer():
        out.problem(ref, f"{value!r} is not a whole number.")
        return None
    return int(number)
