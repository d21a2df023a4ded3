"""XLSForm sheets → the body of ``POST /api/v1/surveys/`` and where each of its fields came from.

The kinds say which rows are theirs and what they make of them (``QuestionKind.xlsform_claims``
and ``from_xlsform``); this module reads cells, languages, lists, ``relevant`` and
``constraint``. Problems are collected by cell, never raised one at a time: the uploader gets
them all in one answer. The body is then validated by the survey validator like any other
(``surveys.services.xlsform``), its errors mapped back to cells through ``where``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from surveys.kinds import _xlsform as xls
from surveys.kinds.registry import kinds
from surveys.xlsform.languages import Languages, find_languages
from surveys.xlsform.parsed import Parsed
from surveys.xlsform.reader import Sheet
from surveys.xlsform.settings_sheet import parse_settings

#: Translatable columns per sheet.
BASES = {
    "survey": ("label", "hint", "deniable::innocuous"),
    "choices": ("label",),
    "settings": ("deniable::title", "deniable::description"),
}
SURVEY_COLUMNS = {"type", "name", "required", "relevant", "constraint", "deniable::design"}
#: Presentation columns Kobo and ODK write that the respondent page has its own words or layout
#: for (docs/xlsform.md#ignored); ``$``-columns are Kobo's bookkeeping.
IGNORED = {"appearance", "constraint_message", "required_message", "media::image"}
CHOICE_COLUMNS = {"list_name", "list name", "name"}
#: Types that collect something about the device or person, never asked in a Deniable survey.
METADATA = {"start", "end", "today", "deviceid", "subscriberid", "simserial", "phonenumber"}
METADATA |= {"username", "email", "audit", "imei", "start-geopoint", "background-audio"}
_TRUE = {"yes", "true", "true()", "1"}
_FALSE = {"no", "false", "false()", "0"}
_CLAUSE = re.compile(
    r"""^\s*(?:\$\{(?P<k1>[^}]+)\}\s*=\s*(?P<q1>['"])(?P<o1>.*?)(?P=q1)"""
    r"""|selected\(\s*\$\{(?P<k2>[^}]+)\}\s*,\s*(?P<q2>['"])(?P<o2>.*?)(?P=q2)\s*\))\s*$"""
)
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_BOUND = re.compile(rf"^\s*\.\s*(?P<op>>=|<=)\s*(?P<v>{_NUMBER})\s*$")


@dataclass
class _Choice:
    name: str
    words: dict[str, str]
    ref: dict[str, str]


def parse_sheets(sheets: dict[str, Sheet]) -> Parsed:
    """Every problem by cell, and the body for the validator (built even when some rows are
    broken, so its own errors for the other rows are listed too)."""
    out = Parsed()
    survey = sheets.get("survey")
    if survey is None:
        out.problem("survey!A1", "No sheet named survey: the questions go there.")
        return out
    settings = parse_settings(sheets.get("settings"), out)
    langs = find_languages(
        sheets, BASES, settings.default_language, settings.default_ref, out.errors
    )
    out.body.update(settings.body(langs))
    out.where.update(settings.where(langs))
    out.where["questions"] = "survey!A1"
    _unknown_columns(survey, SURVEY_COLUMNS, BASES["survey"], out)
    choices = sheets.get("choices")
    if choices is not None:
        _unknown_columns(choices, CHOICE_COLUMNS, BASES["choices"], out)
    lists = _lists(choices, langs, out)
    questions: list[dict[str, Any]] = []
    names: dict[str, tuple[dict[str, str], str]] = {}  # key → (choice name → option, list)
    for number, values in survey.rows:
        question = _question(survey, number, values, len(questions), lists, langs, names, out)
        questions.append(question)
    for i, (number, values) in enumerate(survey.rows):
        if values.get("relevant"):
            _relevant(survey, number, values["relevant"], questions[i], names, out)
    out.body["questions"] = questions
    out.body["translations"] = _translations(out, questions, settings.titles, langs)
    return out


def _unknown_columns(sheet: Sheet, known: set[str], bases: tuple[str, ...], out: Parsed) -> None:
    for column in sheet.columns:
        low = column.lower()
        # Kobo writes the presentation columns per language too (`media::image::English (en)`).
        if low in known or low in IGNORED or low.startswith("$"):
            continue
        if any(low.startswith(ignored + "::") for ignored in IGNORED):
            continue
        if any(low == b or low.startswith(b + "::") for b in bases):
            continue
        if any(column in values for _, values in sheet.rows):
            out.problem(
                sheet.ref(column, 1),
                f"Deniable does not read the column {column!r}; remove it (docs/xlsform.md).",
            )


def _lists(sheet: Sheet | None, langs: Languages, out: Parsed) -> dict[str, list[_Choice]]:
    lists: dict[str, list[_Choice]] = {}
    if sheet is None:
        return lists
    list_column = "list_name" if "list_name" in sheet.columns else "list name"
    for number, values in sheet.rows:
        list_name, name = values.get(list_column), values.get("name")
        if not list_name or not name:
            missing = "list_name" if not list_name else "name"
            out.problem(sheet.ref(missing, number), f"A choice needs a {missing}.")
            continue
        words: dict[str, str] = {}
        refs: dict[str, str] = {}
        for code in langs.codes or [""]:
            column = langs.column("choices", "label", code or None)
            if column is not None:
                refs[code] = sheet.ref(column, number)
                if values.get(column):
                    words[code] = str(values[column])
        entries = lists.setdefault(str(list_name), [])
        if any(c.name == str(name) for c in entries):
            out.problem(sheet.ref("name", number), f"{name!r} is twice in the list {list_name!r}.")
            continue
        entries.append(_Choice(str(name), words, refs))
    return lists


def _words(
    sheet: Sheet, base: str, number: int, values: dict[str, Any], langs: Languages
) -> dict[str, tuple[str | None, str]]:
    """{code: (text or None, cell)} for every language ('' for an unnamed single language)."""
    words: dict[str, tuple[str | None, str]] = {}
    for code in langs.codes or [""]:
        column = langs.column("survey", base, code or None)
        ref = sheet.ref(column or base, number)
        words[code] = (str(values[column]) if column and values.get(column) else None, ref)
    return words


def _question(
    sheet: Sheet,
    number: int,
    values: dict[str, Any],
    index: int,
    lists: dict[str, list[_Choice]],
    langs: Languages,
    names: dict[str, tuple[dict[str, str], str]],
    out: Parsed,
) -> dict[str, Any]:
    ref = lambda column: sheet.ref(column, number)  # noqa: E731
    path = f"questions[{index}]"
    key = str(values.get("name", ""))
    labels = _words(sheet, "label", number, values, langs)
    hints = _words(sheet, "hint", number, values, langs)
    default = langs.default or ""
    text, hint = labels[default][0] or "", hints[default][0]
    question: dict[str, Any] = {"key": key, "text": f"{text}\n\n{hint}" if hint else text}
    question["_words"] = {c: _join(labels[c][0], hints[c][0]) for c in labels if c != default}
    question["_refs"] = {c: labels[c][1] for c in labels}
    _where_question(out, path, ref)
    out.where[path + ".text"] = labels[default][1]
    if not key:
        out.problem(ref("name"), "A question needs a name (its key).")
    if not text:
        out.problem(labels[default][1], "A question needs a label (its text).")
    question["required"] = _required(values.get("required"), ref("required"), out)
    type_text = " ".join(str(values.get("type", "")).split())
    type_word, _, list_name = type_text.partition(" ")
    if type_word in METADATA:
        out.problem(ref("type"), _METADATA.format(type_word))
        return question
    choices: list[_Choice] = []
    if type_word in ("select_one", "select_multiple"):
        if list_name not in lists:
            out.problem(ref("type"), f"No list named {list_name!r} in the choices sheet.")
            return question
        choices = lists[list_name]
    elif list_name:
        out.problem(ref("type"), f"Unknown type {type_text!r}.")
        return question
    options = tuple(c.words.get(default) or c.name for c in choices)
    names[key] = ({c.name: o for c, o in zip(choices, options, strict=True)}, list_name)
    design, innocuous = _design(sheet, number, values, langs, path, out)
    row = xls.XlsformRow(
        type_word=type_word,
        names=tuple(c.name for c in choices),
        options=options,
        design=design,
        bounds=_bounds(values.get("constraint"), ref("constraint"), out),
    )
    kind = next((k for k in kinds() if k.xlsform_claims(row)), None)
    if kind is None:
        out.problem(ref("type"), _no_kind(type_text, design))
        return question
    question.update(kind.from_xlsform(row))
    question["_innocuous"] = {
        c: v for c, v in innocuous.items() if c != default and v[0] is not None
    }
    question["_innocuous_refs"] = {c: v[1] for c, v in innocuous.items()}
    question["_translated"] = kind.translated_design_fields
    question["_choices"] = [(c, o) for c, o in zip(choices, options, strict=True)]
    return question


def _where_question(out: Parsed, path: str, ref: Any) -> None:
    """Which cell each field of question ``path`` comes from."""
    columns = {"": "type", ".key": "name", ".kind": "type", ".options": "type"}
    columns |= {".ordered": "type", ".min": "constraint", ".max": "constraint"}
    columns |= {".integer": "type", ".show_if": "relevant", ".required": "required"}
    columns |= {".design": "deniable::design"}
    for suffix, column in columns.items():
        out.where[path + suffix] = ref(column)


def _join(text: str | None, hint: str | None) -> str | None:
    return f"{text}\n\n{hint}" if text and hint else text


def _required(value: Any, ref: str, out: Parsed) -> bool:
    word = str(value or "").strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE or not word:
        return False
    out.problem(ref, f"required is yes or no (got {value!r}).")
    return False


def _design(
    sheet: Sheet, number: int, values: dict[str, Any], langs: Languages, path: str, out: Parsed
) -> tuple[dict[str, Any] | None, dict[str, tuple[str | None, str]]]:
    ref = sheet.ref("deniable::design", number)
    spec, problems = xls.parse_design(str(values.get("deniable::design", "")))
    for problem in problems:
        out.problem(ref, problem)
    innocuous = _words(sheet, "deniable::innocuous", number, values, langs)
    default = langs.default or ""
    statement, statement_ref = innocuous[default]
    params = xls.text_params(spec["name"]) if spec else ()
    if params and statement is not None:
        spec[params[0]] = statement  # type: ignore[index]
    if params:
        out.where[f"{path}.design.{params[0]}"] = statement_ref
    elif any(v[0] is not None for v in innocuous.values()):
        out.problem(statement_ref, "Only a design with an innocuous statement (crosswise) uses it.")
    return spec, innocuous


def _bounds(value: Any, ref: str, out: Parsed) -> tuple[float, float] | None:
    if value is None or not str(value).strip():
        return None
    low = high = None
    for part in re.split(r"\s+and\s+", str(value).strip(), flags=re.IGNORECASE):
        match = _BOUND.match(part)
        if match is None:
            low = high = None
            break
        if match["op"] == ">=":
            low = float(match["v"])
        else:
            high = float(match["v"])
    if low is None or high is None:
        out.problem(ref, "Write the bounds as . >= min and . <= max (e.g. . >= 0 and . <= 120).")
        return None
    return low, high


def _relevant(
    sheet: Sheet,
    number: int,
    text: str,
    question: dict[str, Any],
    names: dict[str, tuple[dict[str, str], str]],
    out: Parsed,
) -> None:
    ref = sheet.ref("relevant", number)
    keys, picked = set(), []
    for clause in re.split(r"\s+or\s+", str(text).strip()):
        match = _CLAUSE.match(clause)
        if match is None:
            out.problem(ref, _RELEVANT)
            return
        keys.add((match["k1"] or match["k2"]).strip())
        picked.append(match["o1"] if match["k1"] else match["o2"])
    if len(keys) != 1:
        out.problem(ref, "Skip logic may follow one earlier question only.")
        return
    (key,) = keys
    if key not in names:
        out.problem(ref, f"${{{key}}} is not a question with choices above.")
        return
    by_name, list_name = names[key]
    unknown = [n for n in picked if n not in by_name]
    if unknown:
        out.problem(ref, f"{', '.join(map(repr, unknown))} not in the list {list_name!r}.")
        return
    question["show_if"] = {"key": key, "in": [by_name[n] for n in picked]}


def _translations(
    parsed: Parsed,
    questions: list[dict[str, Any]],
    titles: dict[str, str],
    langs: Languages,
) -> dict[str, Any]:
    body, out = parsed.body, {}
    for code in langs.codes[1:]:
        entry: dict[str, Any] = {"questions": {}}
        if code in titles:
            entry["title"] = titles[code]
        if body.get("description") and f"description:{code}" in titles:
            entry["description"] = titles[f"description:{code}"]
        for q in questions:
            _where_words(parsed, code, q)
            entry["questions"][q["key"]] = _question_words(q, code)
        out[code] = entry
    for q in questions:
        for private in [k for k in q if k.startswith("_")]:
            q.pop(private, None)
    return out


def _question_words(q: dict[str, Any], code: str) -> dict[str, Any]:
    """A question's translation into ``code`` as the survey validator takes it."""
    words: dict[str, Any] = {}
    if q.get("_words", {}).get(code):
        words["text"] = q["_words"][code]
    if "options" in q:
        words["options"] = {o: c.words[code] for c, o in q.get("_choices", []) if code in c.words}
    for param in q.get("_translated", ()):
        if code in q.get("_innocuous", {}):
            words[param] = q["_innocuous"][code][0]
    return words


def _where_words(parsed: Parsed, code: str, q: dict[str, Any]) -> None:
    base = f"translations.{code}.questions.{q['key']}"
    if code in q.get("_refs", {}):
        parsed.where[base] = parsed.where[f"{base}.text"] = q["_refs"][code]
    for choice, option in q.get("_choices", []):
        if code in choice.ref:
            parsed.where[f"{base}.options.{option}"] = choice.ref[code]
    for param in q.get("_translated", ()):
        if code in q.get("_innocuous_refs", {}):
            parsed.where[f"{base}.{param}"] = q["_innocuous_refs"][code]


_METADATA = (
    "{!r} records something about the device or the person answering; a Deniable survey never "
    "does (answers are unlinkable): remove this row."
)
_RELEVANT = (
    "Skip logic reads ${question} = 'option' or selected(${question}, 'option'), joined by or."
)


def _no_kind(type_text: str, design: Any) -> str:
    with_design = f" with the design {design['name']!r}" if design else " without a design"
    return (
        f"No Deniable question is a {type_text!r}{with_design}: a yes/no design needs "
        "select_one over a yes/no list, k_rr a select_one, a select_multiple a yes/no design, "
        "integer and decimal none (docs/xlsform.md#types)."
    )
