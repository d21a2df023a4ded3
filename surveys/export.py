"""Shuffled export of the reports for R, pandas and Stata, with the design metadata beside it.

One row per submission, one column per question; ``yes_no`` as 1/0 (the *reported* answer),
``choice``/``category`` as the option text, ``number`` as a number, empty when skipped. No
submission id, no date, no randomizer: nothing that links a row to a time or a request. Rows come
in random order (``ORDER BY random()``, in the database), so row order carries no arrival-time
information either.

The CSV is plain: a header row of question keys, then the rows — no comment lines, so no reader
needs a comment character (a ``#`` inside an option used to cut the cell short). Cells follow
:mod:`deniable.csv_cells`: every text cell is ``'`` + the exact text (formula-safe in a
spreadsheet, never mistaken for a number or a missing value), so reading back is exact::

    d = pd.read_csv(url, storage_options={"Authorization": f"Token {token}"})
    text = d.select_dtypes(exclude="number").columns
    d[text] = d[text].apply(lambda column: column.str[1:])

Each question's design (``p_truth``, ``p_yes``, ``p_no`` or ``p``, ``c``, ``d``, ε, a ready-made
``rrreg`` call for R's ``rr`` package) is served separately as JSON by :func:`export_metadata`
(``GET …/responses/export/metadata/``) and inside the JSON export.

Rows are streamed from a server-side cursor in chunks, so exports of 10⁶ submissions run in
constant memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from deniable import csv_cells
from surveys import designs
from surveys.crosswise_statements import (
    RESPONDENTS_BY_LANGUAGE_NOTE,
    crosswise_statements,
    is_crosswise,
)
from surveys.models import Question, Submission, Survey
from surveys.shuffle_guarantee import shuffled_export_guarantee
from surveys.tally_layout import is_cheater_question

CHUNK = 2000


def export_designs(survey: Survey) -> dict[str, dict[str, Any]]:
    """Per question: kind, text, options/bounds and (randomized kinds) the full design."""
    out: dict[str, dict[str, Any]] = {}
    for q in survey.questions.all():
        entry: dict[str, Any] = {"kind": q.kind, "text": q.text}
        if q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY, Question.Kind.MULTI):
            entry["options"] = list(q.options)
        if q.kind == Question.Kind.MULTI:
            entry["columns"] = {option: option_column(q.key, option) for option in q.options}
        if q.kind == Question.Kind.NUMBER:
            entry["min"], entry["max"] = q.min_value, q.max_value
            if q.integer:
                entry["integer"] = True  # whole numbers only
        description = designs.design_description(q)
        if description is not None:
            entry["design"] = description
        if is_crosswise(q):
            # Issue 21.9: every language's statement, each checked against the library.
            entry["innocuous_statements"] = crosswise_statements(survey, q)
            entry["innocuous_verified"] = all(s["verified"] for s in entry["innocuous_statements"])
        # Why a cell may be empty (docs/exports.md#missing-answers): an optional question left
        # unanswered, or one its skip logic hid (asked only after those category answers).
        entry["required"] = q.required
        if q.show_if:
            entry["show_if"] = {"key": q.show_if["key"], "in": list(q.show_if["in"])}
        if q.ordered:
            entry["ordered"] = True  # options scored 1..k in this order
        out[q.key] = entry
    return out


def _r_name(key: str) -> str:
    """The key as an R formula term: backquoted unless it is a syntactic name (``007``, ``a-b``)."""
    return key if re.fullmatch(r"[A-Za-z][A-Za-z0-9_.]*", key) else f"`{key}`"


def _rr_hint(key: str, design: dict[str, Any]) -> str | None:
    """A ready-made ``rr::rrreg`` call for the column (data frame ``reports``, as in the docs)."""
    name, term = design.get("name"), _r_name(key)
    if name == "forced_response":
        return (
            f"rrreg({term} ~ 1, data = reports, p = {design['p_truth']!r}, "
            f'p0 = {design["p_no"]!r}, p1 = {design["p_yes"]!r}, design = "forced-known")'
        )
    if name == "warner":
        return f'rrreg({term} ~ 1, data = reports, p = {design["p"]!r}, design = "mirrored")'
    if name == "unrelated_question":
        return (
            f"rrreg({term} ~ 1, data = reports, p = {design['p']!r}, "
            f'q = {design["innocuous_prevalence"]!r}, design = "unrelated-known")'
        )
    # R's RRreg package (Heck & Moshagen) covers the designs the rr package does not.
    if name == "two_probability":
        return (
            f'RRreg::RRuni(response = "{key}", data = reports, model = "Kuk", '
            f"p = c({design['p_yes_if_trait']!r}, {design['p_yes_if_not']!r}))"
        )
    if name == "crosswise":
        # The column holds "same" as TRUE: RRreg's Crosswise model codes 1 = same.
        return (
            f'RRreg::RRuni(response = "{key}", data = reports, model = "Crosswise", '
            f"p = {design['innocuous_prevalence']!r})"
        )
    if name == "cheater_detection":
        # The report column is 1/0 and the group column 1/2 (``<key>.group``). RRreg's p for
        # CDMsym as we read getPW: c(forced yes in group 1, forced no in group 1, forced yes in
        # group 2, forced no in group 2) — parameter order NOT verified against RRreg itself.
        g1, g2 = design["groups"]
        return (
            f'RRreg::RRuni(response = "{key}", data = reports, model = "CDMsym", '
            f"p = c({g1['p_yes']!r}, {g1['p_no']!r}, {g2['p_yes']!r}, {g2['p_no']!r}), "
            f'group = reports[["{group_column(key)}"]])'
        )
    return None


def group_column(key: str) -> str:
    """The group column of a cheating-detection question: question keys hold no ".", so it never
    collides with another question's column."""
    return f"{key}.group"


def option_column(key: str, option: str) -> str:
    """A multi question's column for one option: ``<key>.<option>`` (docs/exports.md#multi).
    Question keys hold no ".", so the prefix up to the first "." names the question and the
    column never collides with another question's. pandas keeps the name as written; R's
    ``read.csv`` makes it syntactic (``check.names``), the metadata maps both ways."""
    return f"{key}.{option}"


def _columns(survey: Survey) -> list[tuple[str, str]]:
    """(column, kind) in order: each question's key, and after a cheating-detection question its
    group column (an integer 1/2); a multi question has one 1/0 column per option instead."""
    out: list[tuple[str, str]] = []
    for q in survey.questions.all():
        if q.kind == Question.Kind.MULTI:
            out.extend((option_column(q.key, o), Question.Kind.YES_NO) for o in q.options)
            continue
        out.append((q.key, q.kind))
        if is_cheater_question(q):
            out.append((group_column(q.key), Question.Kind.YES_NO))  # an integer column
    return out


def _shuffled_rows(survey: Survey) -> Iterator[dict[str, Any]]:
    """Rows {question_key: value}, submissions in random order (``ORDER BY random()`` in the
    database), streamed from a server-side cursor in chunks."""
    kinds = dict(_columns(survey))
    stored = (
        # Published batches only: an export taken before and after one submission must not show
        # that respondent's row (the same k-at-a-time rule as the estimates).
        Submission.objects.filter(survey=survey, sealed=True)
        .order_by("?")
        .values_list("answers", flat=True)
        .iterator(chunk_size=CHUNK)
    )
    for answers in stored:
        row = dict.fromkeys(kinds)
        for key, value in answers.items():
            if isinstance(value, dict) and "report" not in value:  # multi: {option: bool}
                for option, reported in value.items():
                    row[option_column(key, option)] = int(reported)
            elif isinstance(value, dict):  # cheating detection: {group, report}
                row[key], row[group_column(key)] = int(value["report"]), int(value["group"])
            elif key in row:
                row[key] = int(value) if kinds[key] == Question.Kind.YES_NO else value
        yield row


COLUMN_TYPES: dict[str, str] = {
    Question.Kind.YES_NO: "integer",
    Question.Kind.CHOICE: "text",
    Question.Kind.CATEGORY: "text",
    Question.Kind.NUMBER: "number",
}


def _multi_columns(key: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """One metadata column per option of a multi question: a 1/0 column with the shared design
    (each option is its own yes/no report through it) and its ``rrreg`` call."""
    out = []
    for option, column in entry["columns"].items():
        design = {k: v for k, v in entry["design"].items() if k not in ("options", "applies_to")}
        design["epsilon"] = entry["design"].get("epsilon_per_option")
        item: dict[str, Any] = {
            "key": column,
            "type": "integer",
            "kind": "multi_option",
            "question": key,
            "option": option,
            "text": f"{entry['text']} — {option}: the REPORTED answer for this option (1/0).",
            "design": design,
        }
        hint = _rr_hint(column, design)
        if hint:
            item["rrreg"] = hint
        out.append(item)
    return out


def _cell(kind: str, value: Any) -> csv_cells.Cell:
    """The raw value for the one writer, typed by its column (a text column's value as ``str``)."""
    if COLUMN_TYPES.get(kind) == "text" and value is not None:
        return str(value)
    return value


def export_csv(survey: Survey) -> Iterator[str]:
    """CSV text in pieces: the header row (question keys), then the shuffled rows."""
    questions = _columns(survey)
    rows = ([_cell(kind, row[key]) for key, kind in questions] for row in _shuffled_rows(survey))
    yield from csv_cells.csv_chunks([key for key, _ in questions], rows)


def export_metadata(survey: Survey) -> dict[str, Any]:
    """What the CSV's columns mean, every design's parameters and how the cells are written."""
    columns = []
    for key, entry in export_designs(survey).items():
        if entry["kind"] == Question.Kind.MULTI:
            columns.extend(_multi_columns(key, entry))
            continue
        column = {"key": key, "type": COLUMN_TYPES[entry["kind"]], **entry}
        hint = _rr_hint(key, entry["design"]) if "design" in entry else None
        if hint:
            column["rrreg"] = hint
        columns.append(column)
        if entry.get("design", {}).get("name") == "cheater_detection":
            column["rrreg_parameter_order_verified"] = False
            columns.append(
                {
                    "key": group_column(key),
                    "type": "integer",
                    "text": f"The group (1 or 2) the device drew for {key}; independent of "
                    "the answer.",
                }
            )
    return {
        "survey": survey.slug,
        "title": survey.title,
        # Published rows only, as in the file itself: the unsealed tail would move this count
        # with every submission (issue 21, item 4).
        "respondents": Submission.objects.filter(survey=survey, sealed=True).count(),
        "respondents_by_language": None,
        "respondents_by_language_note": RESPONDENTS_BY_LANGUAGE_NOTE,
        "rows": "One per respondent, shuffled; randomized columns hold the REPORTED answer.",
        "csv": {
            "encoding": "utf-8",
            "line_terminator": "\r\n",
            "text_prefix": csv_cells.TEXT_PREFIX,
            "missing": csv_cells.MISSING,
            "rule": (
                "Every text cell is written as ' followed by the exact text (drop the first "
                "character to read it); numbers are bare; an empty cell is a missing answer."
            ),
        },
        "debias": (
            "yes_no: P(report yes) = c*pi + d, so pi_hat = (mean - d) / c. cheater_detection: "
            "per group i, P(yes) = pi*(1 - p_no_i) + beta*p_yes_i; solve the two equations. "
            "multi: each option's column is a yes_no report through the shared design."
        ),
        "columns": columns,
        # Issue 13: the central (ε, δ) of the randomized-only shuffled file (None: nothing to say).
        "shuffled_randomized_only": shuffled_export_guarantee(survey),
    }


def export_json(survey: Survey) -> Iterator[str]:
    """``{"survey", "designs", "rows": [...]}``, streamed row by row."""
    head = json.dumps({"survey": survey.slug, "designs": export_designs(survey)})
    yield head[:-1] + ', "rows": ['
    first = True
    for row in _shuffled_rows(survey):
        yield ("" if first else ",") + json.dumps(row, allow_nan=False)
        first = False
    yield "]}"
