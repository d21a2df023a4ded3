"""The reports export for R, pandas and Stata, with the design metadata beside it.

One row per submission, one column per question; ``yes_no`` as 1/0 (the *reported* answer),
``choice``/``category`` as the option text, ``number`` as a number, empty when skipped. No
submission id, no date, no randomizer: nothing that links a row to a time or a request. Rows come
in the database's random order (``ORDER BY random()``, not a cryptographic shuffle, drawn anew on
every download), so row order does not follow arrival.

This file gives a respondent their local ε and no more: a row keeps their direct answers beside
their reports. The file that shuffling *does* protect is the shuffled file
(:mod:`surveys.analysis.shuffled`, issue 27), which the metadata points to.

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
from collections.abc import Iterator
from typing import Any

from django.urls import reverse

from deniable import csv_cells
from surveys.definitions import question_designs as designs
from surveys.definitions.crosswise_statements import RESPONDENTS_BY_LANGUAGE_NOTE
from surveys.kinds import kind_of
from surveys.models import ShuffledExport, Submission, Survey

CHUNK = 2000


def export_designs(survey: Survey) -> dict[str, dict[str, Any]]:
    """Per question: kind, text, options/bounds and (randomized kinds) the full design."""
    out: dict[str, dict[str, Any]] = {}
    for q in survey.questions.all():
        kind = kind_of(q)
        entry: dict[str, Any] = {"kind": q.kind, "text": q.text}
        # Options, bounds and (multi) the option columns: in this order, as before the kinds.
        definition = kind.export_entry(q, survey)
        entry.update({k: v for k, v in definition.items() if k not in _AFTER_DESIGN})
        description = designs.design_description(q)
        if description is not None:
            entry["design"] = description
        entry.update({k: v for k, v in definition.items() if k in _AFTER_DESIGN})
        # Why a cell may be empty (docs/exports.md#missing-answers): an optional question left
        # unanswered, or one its skip logic hid (asked only after those category answers).
        entry["required"] = q.required
        if q.show_if:
            entry["show_if"] = {"key": q.show_if["key"], "in": list(q.show_if["in"])}
        if q.ordered:
            entry["ordered"] = True  # options scored 1..k in this order
        out[q.key] = entry
    return out


#: Entries a kind adds after the design (the crosswise statements), so the keys keep their order.
_AFTER_DESIGN = frozenset({"innocuous_statements", "innocuous_verified"})


def columns(survey: Survey) -> list[tuple[str, str]]:
    """(column, column type) in order: each question's columns as its kind writes them (a
    cheating-detection question adds its group column, a multi question one per option)."""
    return [column for q in survey.questions.all() for column in kind_of(q).export_columns(q)]


def shuffled_rows(survey: Survey) -> Iterator[dict[str, Any]]:
    """Rows {column: value}, submissions in random order (``ORDER BY random()`` in the
    database), streamed from a server-side cursor in chunks."""
    names = [column for column, _ in columns(survey)]
    kinds = {q.key: kind_of(q) for q in survey.questions.all()}
    stored = (
        # Published batches only: an export taken before and after one submission must not show
        # that respondent's row (the same k-at-a-time rule as the estimates).
        Submission.objects.filter(survey=survey, sealed=True)
        .order_by("?")
        .values_list("answers", flat=True)
        .iterator(chunk_size=CHUNK)
    )
    for answers in stored:
        row = dict.fromkeys(names)
        for key, value in answers.items():
            if key in kinds:
                row.update(kinds[key].export_cells(key, value))
        yield row


def _cell(column_type: str, value: Any) -> csv_cells.Cell:
    """The raw value for the one writer, typed by its column (a text column's value as ``str``)."""
    if column_type == "text" and value is not None:
        return str(value)
    return value


def export_csv(survey: Survey) -> Iterator[str]:
    """CSV text in pieces: the header row (question keys), then the shuffled rows."""
    questions = columns(survey)
    rows = ([_cell(type_, row[key]) for key, type_ in questions] for row in shuffled_rows(survey))
    yield from csv_cells.csv_chunks([key for key, _ in questions], rows)


def export_metadata(survey: Survey) -> dict[str, Any]:
    """What the CSV's columns mean, every design's parameters and how the cells are written."""
    kinds = {q.key: kind_of(q) for q in survey.questions.all()}
    described = []
    for key, entry in export_designs(survey).items():
        described.extend(kinds[key].metadata_columns(key, entry))
    return {
        "survey": survey.slug,
        "title": survey.title,
        # Published rows only, as in the file itself: the unsealed tail would move this count
        # with every submission (issue 21, item 4).
        "respondents": Submission.objects.filter(survey=survey, sealed=True).count(),
        "respondents_by_language": None,
        "respondents_by_language_note": RESPONDENTS_BY_LANGUAGE_NOTE,
        "rows": (
            "One per respondent, in the database's random order (not a cryptographic shuffle); "
            "randomized columns hold the REPORTED answer."
        ),
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
        "columns": described,
        # Issue 27: this file keeps direct answers in its rows, so shuffling protects nothing in
        # it; the shuffled file is another file, with its own guarantee.
        "shuffling": (
            "This export claims no amplification by shuffling: its rows keep the direct answers "
            "beside the reports. Each respondent is protected by the local ε of their randomized "
            "answers. The shuffled file (shuffled_file) is the one a central guarantee applies to."
        ),
        "shuffled_file": shuffled_file(survey),
    }


def export_json(survey: Survey) -> Iterator[str]:
    """``{"survey", "designs", "rows": [...]}``, streamed row by row."""
    head = json.dumps({"survey": survey.slug, "designs": export_designs(survey)})
    yield head[:-1] + ', "rows": ['
    first = True
    for row in shuffled_rows(survey):
        yield ("" if first else ",") + json.dumps(row, allow_nan=False)
        first = False
    yield "]}"


def shuffled_file(survey: Survey) -> dict[str, Any]:
    """Where the shuffled file is and, once produced, the guarantee it was produced with."""
    stored = ShuffledExport.objects.filter(survey=survey).only("guarantee").first()
    return {
        "url": reverse("api-survey-export-shuffled", args=[survey.slug]),
        "available": survey.status in (Survey.Status.CLOSED, Survey.Status.ARCHIVED),
        "produced": stored is not None,
        # The stored file's own bound(s) and guarantee; None until it is produced (by the worker
        # at closing, or on its first download).
        "method": stored.guarantee.get("method") if stored is not None else None,
        "guarantee": stored.guarantee if stored is not None else None,
    }
