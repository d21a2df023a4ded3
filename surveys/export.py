"""Shuffled export of the reports, with the design parameters, for R and pandas.

One row per submission, one column per question; ``yes_no`` as 1/0 (the *reported* answer),
``choice``/``category`` as the option string, ``number`` as a number, empty when skipped. No
submission id, no date, no randomizer: nothing that links a row to a time or a request. Rows come
in random order (``ORDER BY random()``, in the database), so row order carries no arrival-time
information either.

The CSV starts with ``#`` comment lines giving every randomized question's design::

    # question=q1 kind=yes_no design=forced_response p_truth=0.5 p_yes=0.25 p_no=0.25 c=0.5 …

Read it with pandas::

    pd.read_csv(url, comment="#")          # (with an Authorization: Token header; storage_options)

and analyse a forced-response column with R's ``rr`` package::

    d <- read.csv(url, comment.char = "#")
    rrreg(q1 ~ 1, data = d, p = 0.5, p0 = 0.25, p1 = 0.25, design = "forced-known")

(``p`` = p_truth, ``p0`` = p_no, ``p1`` = p_yes; for Warner ``design = "mirrored"`` with ``p``;
for the unrelated question ``design = "unrelated-known"`` with ``p`` and
``q`` = innocuous_prevalence.)

Rows are streamed from a server-side cursor in chunks, so exports of 10⁶ submissions run in
constant memory.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from surveys import designs
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


def _rr_hint(key: str, design: dict[str, Any]) -> str | None:
    name = design.get("name")
    if name == "forced_response":
        return (
            f"rrreg({key} ~ 1, data = d, p = {design['p_truth']!r}, p0 = {design['p_no']!r}, "
            f'p1 = {design["p_yes"]!r}, design = "forced-known")'
        )
    if name == "warner":
        return f'rrreg({key} ~ 1, data = d, p = {design["p"]!r}, design = "mirrored")'
    if name == "unrelated_question":
        return (
            f"rrreg({key} ~ 1, data = d, p = {design['p']!r}, "
            f'q = {design["innocuous_prevalence"]!r}, design = "unrelated-known")'
        )
    return None


def _clean_comment(text: str) -> str:
    return " ".join(str(text).split())


def csv_header_lines(survey: Survey) -> list[str]:
    """The ``#`` comment lines: what the columns mean and every design's parameters."""
    lines = [
        f"# deniable export survey={survey.slug} title={_clean_comment(survey.title)}",
        "# One row per respondent, rows shuffled. Randomized columns hold the REPORTED answer "
        "(yes_no: 1/0), never the truth.",
        "# Debias: for yes_no, P(report yes) = c*pi + d, so pi_hat = (mean - d) / c.",
        '# pandas: pd.read_csv(path, comment="#")   R: read.csv(path, comment.char = "#")',
    ]
    for key, entry in export_designs(survey).items():
        parts = [f"question={key}", f"kind={entry['kind']}"]
        design = entry.get("design")
        if design:
            parts.append(f"design={design['name']}")
            parts += [f"{k}={v!r}" for k, v in design.items() if k != "name"]
        if "options" in entry:
            parts.append("options=" + "|".join(entry["options"]))
        if "min" in entry:
            parts += [f"min={entry['min']!r}", f"max={entry['max']!r}"]
        lines.append("# " + " ".join(_clean_comment(p) for p in parts))
        hint = _rr_hint(key, design) if design else None
        if hint:
            lines.append(f"# R rr: {hint}")
    return lines


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


def export_csv(survey: Survey) -> Iterator[str]:
    """CSV text in pieces: the comment header, the column header, then shuffled rows."""
    keys = [q.key for q in survey.questions.all()]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)
        return text

    yield "\n".join(csv_header_lines(survey)) + "\n"
    writer.writerow(keys)
    yield flush()
    pending = 0
    for row in _shuffled_rows(survey):
        writer.writerow(["" if row[k] is None else row[k] for k in keys])
        pending += 1
        if pending >= 500:
            yield flush()
            pending = 0
    yield flush()


def export_json(survey: Survey) -> Iterator[str]:
    """``{"survey", "designs", "rows": [...]}``, streamed row by row."""
    head = json.dumps({"survey": survey.slug, "designs": export_designs(survey)})
    yield head[:-1] + ', "rows": ['
    first = True
    for row in _shuffled_rows(survey):
        yield ("" if first else ",") + json.dumps(row, allow_nan=False)
        first = False
    yield "]}"
