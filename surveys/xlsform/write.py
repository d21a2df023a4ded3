"""A survey → an XLSForm .xlsx (docs/xlsform.md) that pyxform converts and that imports back to
the same survey. Each kind writes its type, list and bounds (``QuestionKind.xlsform_cells``);
the words, design, ``required`` and ``relevant`` are written here alike for every kind."""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.utils.exceptions import IllegalCharacterError
from openpyxl.worksheet.worksheet import Worksheet

from deniable.errors import Conflict
from surveys.kinds import _xlsform as xls
from surveys.kinds.registry import kind_of
from surveys.xlsform.languages import language_label


def survey_xlsx(survey: Any) -> bytes:
    """The survey (its questions in order) as .xlsx bytes."""
    questions = list(survey.questions.order_by("position"))
    languages = list(survey.languages or [])
    words = survey.translations or {}
    cells = {q.key: kind_of(q).xlsform_cells(q) for q in questions}
    book = Workbook()
    sheet = book.active
    assert sheet is not None  # a new workbook has one sheet
    sheet.title = "survey"
    texts = sorted({p for q in questions for p in xls.text_params((q.design or {}).get("name"))})
    header = ["type", "name", *_tagged("label", languages), "required", "relevant", "constraint"]
    header += ["deniable::design"]
    for param in texts:
        header += _tagged(xls.text_column(param), languages)
    _row(sheet, header)
    for q in questions:
        c = cells[q.key]
        row: dict[str, Any] = {"type": c.type, "name": q.key, "required": _yes(q.required)}
        row.update(_words("label", q.text, languages, words, q.key, "text"))
        row.update(c.cells)
        if q.show_if:
            row["relevant"] = _relevant(q.show_if, cells)
        if q.design and kind_of(q).randomized:
            row["deniable::design"] = xls.design_text(q.design)
            for param in xls.text_params(q.design.get("name")):
                field = param if param in kind_of(q).translated_design_fields else None
                row.update(
                    _words(
                        xls.text_column(param),
                        q.design.get(param, ""),
                        languages,
                        words,
                        q.key,
                        field,
                    )
                )
        _row(sheet, [row.get(column, "") for column in header], q.key)
    _choices(book.create_sheet("choices"), questions, cells, languages, words)
    _settings(book.create_sheet("settings"), survey, languages, words)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _tagged(base: str, languages: list[str]) -> list[str]:
    return [f"{base}::{language_label(code)}" for code in languages] or [base]


def _words(
    base: str,
    default: str,
    languages: list[str],
    words: dict[str, Any],
    key: str | None,
    field: str | None,
) -> dict[str, str]:
    """The default words and, for each other language, the survey's translation of ``field``
    (of question ``key``, or of the survey when ``key`` is None)."""
    if not languages:
        return {base: default}
    out = {f"{base}::{language_label(languages[0])}": default}
    for code in languages[1:]:
        entry = words.get(code, {})
        if key is not None:
            entry = entry.get("questions", {}).get(key, {})
        out[f"{base}::{language_label(code)}"] = entry.get(field, "") if field else ""
    return out


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _relevant(show_if: dict[str, Any], cells: dict[str, xls.XlsformCells]) -> str:
    target = show_if["key"]
    names = {option: name for name, option in cells[target].choices} if target in cells else {}
    return " or ".join(f"${{{target}}} = '{names.get(o, o)}'" for o in show_if["in"])


def _row(sheet: Worksheet, values: list[Any], what: str = "") -> None:
    """Append a row; text is kept text even when it starts with "=" (never a formula). Text XML
    cannot carry (most control characters) is a 409 naming ``what`` (a question's key)."""
    try:
        sheet.append(values)
    except IllegalCharacterError:
        where = f"the question {what!r}" if what else f"the {sheet.title} sheet"
        raise Conflict(
            f"The words of {where} hold a control character an .xlsx cannot carry; edit them."
        ) from None
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str) and cell.data_type == "f":
            cell.data_type = "s"


def _choices(
    sheet: Worksheet,
    questions: list[Any],
    cells: dict[str, xls.XlsformCells],
    languages: list[str],
    words: dict[str, Any],
) -> None:
    _row(sheet, ["list_name", "name", *_tagged("label", languages)])
    written: set[str] = set()
    for q in questions:
        c = cells[q.key]
        list_name = c.type.partition(" ")[2]
        if not list_name or list_name in written:
            continue
        written.add(list_name)
        labels = words_of_options(q, languages, words, shared=c.shared)
        for name, option in c.choices:
            _row(sheet, [list_name, name, *[label(option) for label in labels]], q.key)


def words_of_options(
    q: Any, languages: list[str], words: dict[str, Any], *, shared: bool
) -> list[Callable[[str], str]]:
    """One label function per language column: the option itself in the default language, the
    survey's translation in the others; the shared yes/no list in the app's own words."""
    if shared:
        codes: list[str | None] = [*languages] or [None]
        return [_yes_no_words(code) for code in codes]
    labels: list[Callable[[str], str]] = [lambda option: option]
    for code in languages[1:]:
        table = words.get(code, {}).get("questions", {}).get(q.key, {}).get("options", {})
        labels.append(functools.partial(_label_in, table))
    return labels


def _label_in(table: dict[str, str], option: str) -> str:
    return str(table.get(option, ""))


def _yes_no_words(code: str | None) -> Callable[[str], str]:
    with translation.override(code) if code else contextlib.nullcontext():
        table = {"Yes": _("Yes"), "No": _("No")}
    return lambda option: table.get(option, option)


def _settings(sheet: Worksheet, survey: Any, languages: list[str], words: dict[str, Any]) -> None:
    row: dict[str, Any] = {"form_title": survey.title, "form_id": survey.slug}
    if languages:
        row["default_language"] = language_label(languages[0])
    row["deniable::budget_epsilon"] = survey.budget_epsilon
    row["deniable::budget_delta"] = survey.budget_delta
    row["deniable::access"] = survey.access
    row["deniable::planned_n"] = survey.planned_n
    if survey.response_cap is not None:
        row["deniable::response_cap"] = survey.response_cap
    if survey.description:
        row.update(
            _words(
                "deniable::description", survey.description, languages, words, None, "description"
            )
        )
    for code in languages[1:]:
        row[f"deniable::title::{language_label(code)}"] = words.get(code, {}).get("title", "")
    _row(sheet, list(row))
    _row(sheet, list(row.values()))
