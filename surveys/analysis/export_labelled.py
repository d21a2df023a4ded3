"""Labelled exports for Stata (``.dta``, format 118) and SPSS (``.sav``), written by pyreadstat.

The same rows and columns as the CSV (:mod:`surveys.analysis.export`): the cells come from the
same :func:`~surveys.analysis.export.shuffled_rows` (published batches only, shuffled, no ids or
dates), in the same column order. What the formats add comes from each kind's
``labelled_columns`` hook: a variable label (the question's text) and value labels (yes/no
``1 = Yes, 0 = No``, an option question's options ``1..k``). A text column with value labels is
written as those codes, as Stata and SPSS keep categorical answers (Stata has no labelled
strings); the codes follow the question's option order, so an ``ordered`` question's codes are
its scores.

What the formats cannot hold is changed by one written rule, never silently (docs/exports.md):

* variable names — a CSV column (``hours``, ``drugs.cannabis``, ``2nd-try``) becomes a valid name
  (:func:`variable_names`): characters outside ``A-Z a-z 0-9 _`` become ``_``, a name not starting
  with a letter gets a ``v`` in front, names are cut to 27 characters and made unique with
  ``_2``, ``_3``…; the notes (SPSS) map every name back to its CSV column;
* labels longer than the format allows (Stata: 80 characters; SPSS: 256 bytes for a variable
  label, 120 for a value label, 64 for the file label) end in ``…``; the full texts are in the
  export metadata (``GET …/responses/export/metadata/``) and, for SPSS, in the file's notes.

The design metadata: SPSS files carry it in their notes (document lines of ≤ 80 bytes: the survey,
what a row is, and per column its CSV name, kind, text and design); Stata files in their label
(the survey and where the designs are: pyreadstat writes no Stata notes).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import textwrap
from dataclasses import dataclass
from typing import IO, Any

from django.urls import reverse

from surveys.analysis import export
from surveys.kinds import kind_of
from surveys.kinds.base import ColumnLabels
from surveys.models import Survey


@dataclass(frozen=True)
class LabelledFormat:
    """One labelled format: its file extension, media type and the limits it imposes."""

    extension: str
    content_type: str
    #: (limit, unit) of a variable label, a value label and the file label.
    variable_label: tuple[int, str]
    value_label: tuple[int, str]
    file_label: tuple[int, str]


FORMATS: dict[str, LabelledFormat] = {
    "dta": LabelledFormat(
        "dta", "application/x-stata-dta", (80, "chars"), (32000, "bytes"), (80, "chars")
    ),
    "sav": LabelledFormat(
        "sav", "application/x-spss-sav", (256, "bytes"), (120, "bytes"), (64, "bytes")
    ),
}
#: Stata 118 (``version=14`` in pyreadstat; 15 writes 119, which Stata 14 cannot open).
STATA_VERSION = 14
#: Stata allows 32 characters, but pyreadstat names each value label set after its variable
#: plus the column's index (``coin0``, ``party2``): 27 leaves room for the 5 digits of Stata's
#: largest index (32767 variables).
NAME_LENGTH = 27
NOTE_BYTES = 80  # an SPSS document line
ELLIPSIS = "…"

# Names neither Stata nor SPSS accept as a variable (compared case-insensitively: SPSS ignores
# case). A question key equal to one gets a ``_`` appended.
RESERVED = frozenset(
    "all and by eq ge gt le lt ne not or to with _all _b byte _coef _cons double float if in int"
    " long _n _pi _pred _rc _skip str strl using".split()
)
_INVALID = re.compile(r"[^A-Za-z0-9_]")


def fit(text: str, limit: int, unit: str) -> str:
    """``text`` within ``limit`` characters or UTF-8 bytes, ending in ``…`` when it was cut."""

    def size(s: str) -> int:
        return len(s) if unit == "chars" else len(s.encode())

    if size(text) <= limit:
        return text
    cut = text
    while cut and size(cut + ELLIPSIS) > limit:
        cut = cut[:-1]
    return cut + ELLIPSIS


def variable_names(columns: list[str]) -> dict[str, str]:
    """CSV column → a variable name valid in Stata and SPSS, unique ignoring case."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for column in columns:
        name = _INVALID.sub("_", column)
        if not name[:1].isascii() or not name[:1].isalpha():
            name = "v" + name
        name = name[:NAME_LENGTH]
        if name.lower() in RESERVED:
            name = name[: NAME_LENGTH - 1] + "_"
        base, n = name, 1
        while name.lower() in used:
            n += 1
            suffix = f"_{n}"
            name = base[: NAME_LENGTH - len(suffix)] + suffix
        used.add(name.lower())
        out[column] = name
    return out


@dataclass
class LabelledTable:
    """The export as columns of values, with what the labelled formats say about them."""

    names: dict[str, str]  # CSV column → variable name
    data: dict[str, list[Any]]  # variable name → its cells (codes for a labelled text column)
    labels: dict[str, ColumnLabels]  # variable name → labels
    numeric: dict[str, bool]  # variable name → written as numbers (else as text)


def labelled_table(survey: Survey) -> LabelledTable:
    """The CSV's cells, in its order; a text column with value labels as their codes (a cell no
    label names — impossible once a survey is frozen — gets a new code labelled with itself)."""
    typed = export.columns(survey)
    names = variable_names([column for column, _ in typed])
    by_column: dict[str, ColumnLabels] = {}
    for q in survey.questions.all():
        by_column.update(kind_of(q).labelled_columns(q))
    labels = {names[c]: by_column.get(c, ColumnLabels(c, {})) for c, _ in typed}
    codes = {
        c: {word: code for code, word in labels[names[c]].values.items()}
        for c, type_ in typed
        if type_ == "text" and labels[names[c]].values
    }
    order = [column for column, _ in typed]
    rows = [[row[column] for column in order] for row in export.shuffled_rows(survey)]
    data: dict[str, list[Any]] = {}
    for i, column in enumerate(order):
        cells = [row[i] for row in rows]
        coded = codes.get(column)
        if coded is not None:
            cells = [None if v is None else _code(coded, labels[names[column]], v) for v in cells]
        data[names[column]] = cells
    numeric = {names[c]: type_ != "text" or c in codes for c, type_ in typed}
    return LabelledTable(names, data, labels, numeric)


def _code(coded: dict[str, int], labels: ColumnLabels, value: Any) -> int:
    """The code of a text cell; a word no label names gets a new code (never dropped)."""
    word = str(value)
    if word not in coded:
        coded[word] = max(coded.values(), default=0) + 1
        labels.values[coded[word]] = word
    return coded[word]


def _note_lines(text: str) -> list[str]:
    """``text`` as SPSS document lines of at most 80 bytes (wrapped at spaces where it can)."""
    lines: list[str] = []
    for line in textwrap.wrap(text, NOTE_BYTES) or [""]:
        while len(line.encode()) > NOTE_BYTES:  # multibyte text: cut by bytes
            head = line
            while len(head.encode()) > NOTE_BYTES:
                head = head[:-1]
            lines.append(head)
            line = line[len(head) :]
        lines.append(line)
    return lines


def notes(survey: Survey, table: LabelledTable) -> list[str]:
    """The design metadata as document lines: the survey, what a row is, then per column."""
    designs = export.export_designs(survey)
    paragraphs = [
        f"Deniable survey {survey.slug}: {survey.title}",
        "One row per respondent, in random order; randomized columns hold the REPORTED answer,"
        " not the true one. Debias with each design's c and d: pi_hat = (mean - d) / c.",
        "Full metadata: GET " + reverse("api-survey-export-metadata", args=[survey.slug]),
    ]
    question_of = {
        c: q.key for q in survey.questions.all() for c, _ in kind_of(q).export_columns(q)
    }
    for column, name in table.names.items():
        entry = designs.get(question_of.get(column, ""), {})
        design = json.dumps(entry.get("design"), ensure_ascii=False) if "design" in entry else ""
        paragraphs.append(
            f"{name} (CSV column {column}): {entry.get('kind', '')}; "
            f"text: {table.labels[name].label}" + (f"; design: {design}" if design else "")
        )
    return [line for paragraph in paragraphs for line in _note_lines(paragraph)]


def _file_label(survey: Survey, fmt: LabelledFormat) -> str:
    return fit(
        f"{survey.title} (Deniable {survey.slug}; designs: responses/export/metadata/)",
        *fmt.file_label,
    )


def export_labelled(survey: Survey, fmt_name: str) -> IO[bytes]:
    """The survey's reports as a ``.dta`` or ``.sav`` file, open for reading at its start (the
    file has no name on disk any more: closing it frees it)."""
    import pandas as pd  # heavy: imported by the labelled exports only
    import pyreadstat

    fmt = FORMATS[fmt_name]
    table = labelled_table(survey)
    frame = pd.DataFrame(
        {
            name: pd.Series(cells, dtype="float64" if table.numeric[name] else "object")
            for name, cells in table.data.items()
        },
        columns=list(table.data),
    )
    column_labels = {n: fit(lab.label, *fmt.variable_label) for n, lab in table.labels.items()}
    value_labels = {
        n: {code: fit(word, *fmt.value_label) for code, word in lab.values.items()}
        for n, lab in table.labels.items()
        if lab.values
    }
    descriptor, path = tempfile.mkstemp(suffix=f".{fmt.extension}")
    os.close(descriptor)
    common: dict[str, Any] = {
        "file_label": _file_label(survey, fmt),
        "column_labels": column_labels,
        "variable_value_labels": value_labels,
    }
    try:
        if fmt.extension == "dta":
            pyreadstat.write_dta(frame, path, version=STATA_VERSION, **common)
        else:
            pyreadstat.write_sav(frame, path, note=notes(survey, table), **common)
        return open(path, "rb")  # handed to the response, which closes it
    finally:
        os.unlink(path)  # the open file stays readable; nothing is left on disk
