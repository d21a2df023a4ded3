"""Shuffled export of the reports for R, pandas and Stata, with the design metadata beside it.

One row per submission, one column per question; ``yes_no`` as 1/0 (the *reported* answer),
``choice``/``category`` as the option text, ``number`` as a number, empty when skipped. No
submission id, no date, no randomizer: nothing that links a row to a time or a request. Rows come
in random order (``ORDER BY random()``, in the database), so row order carries no arrival-time
information either.

The CSV is plain: a header row of question keys, then the rows — no comment lines, so no reader
needs a comment character (a ``#`` inside an option used to cut the cell short). Cells follow
:mod:`surveys.csv_cells`: every text cell is ``'`` + the exact text (formula-safe in a
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

from surveys import csv_cells, designs
from surveys.models import Question, Submission, Survey

CHUNK = 2000


def export_designs(survey: Survey) -> dict[str, dict[str, Any]]:
    """Per question: kind, text, options/bounds and (randomized kinds) the full design."""
    out: dict[str, dict[str, Any]] = {}
    for q in survey.questions.all():
        entry: dict[str, Any] = {"kind": q.kind, "text": q.text}
        if q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY):
            entry["options"] = list(q.options)
        if q.kind == Question.Kind.NUMBER:
            entry["min"], entry["max"] = q.min_value, q.max_value
        description = designs.design_description(q)
        if description is not None:
            entry["design"] = description
        out[q.key] = entry
    return out


def _r_name(key: str) -> str:
    """The key as an R formula term: backquoted unless it is a syntactic name (``007``, ``a-b``)."""
    return key if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key) else f"`{key}`"


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
    return None


def _shuffled_rows(survey: Survey) -> Iterator[dict[str, Any]]:
    """Rows {question_key: value}, submissions in random order (``ORDER BY random()`` in the
    database), streamed from a server-side cursor in chunks."""
    kinds = {q.key: q.kind for q in survey.questions.all()}
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
            if key in row:
                row[key] = int(value) if kinds[key] == Question.Kind.YES_NO else value
        yield row


COLUMN_TYPES: dict[str, str] = {
    Question.Kind.YES_NO: "integer",
    Question.Kind.CHOICE: "text",
    Question.Kind.CATEGORY: "text",
    Question.Kind.NUMBER: "number",
}


def _cell(kind: str, value: Any) -> Any:
    if COLUMN_TYPES.get(kind) == "text":
        return csv_cells.text_cell(value)
    return csv_cells.number_cell(value)


def export_csv(survey: Survey) -> Iterator[str]:
    """CSV text in pieces: the header row (question keys), then the shuffled rows."""
    questions = [(q.key, q.kind) for q in survey.questions.all()]
    rows = ([_cell(kind, row[key]) for key, kind in questions] for row in _shuffled_rows(survey))
    yield from csv_cells.csv_chunks([key for key, _ in questions], rows)


def export_metadata(survey: Survey) -> dict[str, Any]:
    """What the CSV's columns mean, every design's parameters and how the cells are written."""
    columns = []
    for key, entry in export_designs(survey).items():
        column = {"key": key, "type": COLUMN_TYPES[entry["kind"]], **entry}
        hint = _rr_hint(key, entry["design"]) if "design" in entry else None
        if hint:
            column["rrreg"] = hint
        columns.append(column)
    return {
        "survey": survey.slug,
        "title": survey.title,
        "respondents": Submission.objects.filter(survey=survey).count(),
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
        "debias": "yes_no: P(report yes) = c*pi + d, so pi_hat = (mean - d) / c.",
        "columns": columns,
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
