"""The shuffled file: what it holds, how it is shuffled, and the guarantee it gives (issue 27;
docs/exports.md#the-shuffled-file, docs/privacy-model.md#the-shuffled-file).

**What it holds.** Only what the analysis of a randomized question needs: the multiset of its
reports. Each included question is its own section, shuffled on its own (Fisher–Yates over
:func:`secrets.randbelow`); a multi question's option columns and a cheating-detection question's
group column stay with their report (together they are that question's one report). No direct
(category, number) column, no id, no date, no batch: nothing but reports.

Why per question (and not one shuffled row per respondent): the per-question estimates need only
each question's histogram, and a row would join one person's reports across questions, so an
optional or skip-logic question's empty cells would single out who skipped it (a pattern that is
not random). In its own section a question's reports are just a multiset: who answered which
question is not in the file, only how many reports each question has.

**Left out**, each listed with its reason: questions asked directly (not randomized); crosswise
questions, whose local ε assumes the recipient cannot learn the respondent's innocuous fact — a
file sent on cannot promise that about its recipient; designs without a finite local ε.

**The guarantee.** Section q has n_q reports of an ε₀_q-DP randomizer; shuffled, it is
(ε_q, δ_q)-DP for whoever receives only it (amplification by shuffling,
:mod:`dpcore.central.shuffle`: for a yes/no section, the count of yes-reports bounded over every
split of the others' answers (``histogram-splits``, within ≈ 0.3 % of the exact worst case);
else, when each report is one k-ary randomized response, the exact privacy blanket
(``privacy-blanket``: what an adversary told which of the others reported uniformly at random
could learn) or Feldman, McMillan & Talwar's 2023 clone pair, else their 2021 pair — the smallest
sound one is stated), with
δ_q = δ / (number of non-empty sections). The sections use independent coins and independent
shuffles, so the file is (Σ ε_q, Σ δ_q)-DP for a respondent who answered every question (basic
composition; docs/formulas.md#shuffling) — and (ε, δ)-DP at the same total δ for the ε of the
sections' privacy profiles composed (:mod:`dpcore.central.shuffle_compose`, "connect the dots":
0.3–0.55× the sum where it was measured); the smaller is stated, and named in ``composition``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Iterator, MutableSequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from deniable import csv_cells
from dpcore.central import shuffle, shuffle_compose
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Submission, Survey

T = TypeVar("T")

#: The bound that holds for any randomizer (and the method named when nothing was computed).
METHOD = "clones-2021"
CHUNK = 2000

#: What the guarantee assumes, in plain words (with the file, the metadata and the results page).
ASSUMPTIONS = (
    "Each section is one question's randomized reports, made on the respondents' devices (or by "
    "their own coins) by the question's design, shuffled on its own with a cryptographic "
    "generator: a position in one section says nothing about any other section.",
    "The file holds no direct answers, ids, dates or batches, and it is produced once: every "
    "download is the same bytes.",
    "It protects what a respondent answered, given who answered: how many reports each question "
    "has is in the file, so whether someone answered an optional question is not protected.",
    "It protects a respondent against whoever holds only this file (and the public designs); "
    "the survey's operators, who saw reports arrive, are protected against by the local ε only.",
    "Only the published batches are in it: the last reports (fewer than one batch) when the "
    "survey closed are not.",
)

LEFT_OUT_DIRECT = "asked directly (not randomized): left out of the shuffled file"
LEFT_OUT_PAIRED = (
    "crosswise: its local ε assumes the recipient cannot learn the respondent's innocuous fact, "
    "which a file sent on cannot promise"
)
LEFT_OUT_NOT_DP = "its design has no finite local ε (not differentially private)"


def fisher_yates(items: MutableSequence[T]) -> None:
    """Shuffle in place, uniformly over the n! orders: for i = n−1 … 1 swap item i with a
    uniform j ∈ {0, …, i} (``secrets.randbelow(i + 1)``: the OS's CSPRNG, no modulo bias)."""
    for i in range(len(items) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


def _guarantee(*, n: int, local_epsilon: float, delta: float, k: int | None) -> dict[str, Any]:
    """The one call into the accounting: :func:`dpcore.central.shuffle.shuffled_guarantee`, the
    tightest sound (ε, δ) for n shuffled ε₀-DP reports — ``histogram-splits`` for a yes/no
    column (k = 2), ``privacy-blanket`` or ``clones-2023`` when each report is one k-ary randomized
    response (``k``:
    :func:`~surveys.definitions.question_designs.report_arity`), else ``clones-2021`` (any
    randomizer). An empty section protects no one's report: (0, 0)."""
    if n == 0 or local_epsilon <= 0:
        return {
            "epsilon": 0.0,
            "delta": 0.0,
            "n": n,
            "local_epsilon": local_epsilon,
            "method": METHOD,
        }
    if n == 1:
        # One report shuffled is that report: its local ε, nothing gained (the bounds need n ≥ 2).
        return {
            "epsilon": local_epsilon,
            "delta": 0.0,
            "n": n,
            "local_epsilon": local_epsilon,
            "method": "local",
        }
    g = shuffle.shuffled_guarantee(n, local_epsilon, delta, k)
    return {
        "epsilon": g.epsilon,
        "delta": g.delta,
        "n": g.n,
        "local_epsilon": g.local_epsilon,
        "method": g.method,
    }


@dataclass
class Section:
    key: str
    columns: list[tuple[str, str]]
    design: dict[str, Any]
    #: What the analysis needs beside the reports: kind, text, options (public, per question).
    about: dict[str, Any] = field(default_factory=dict)
    #: k when each report is one k-ary randomized response (the blanket and 2023 bounds apply;
    #: k = 2: the splits bound too), else None.
    arity: int | None = None
    reports: list[list[Any]] = field(default_factory=list)


def plan(survey: Survey) -> tuple[list[Section], list[dict[str, str]]]:
    """The sections (included questions, in order, still empty) and the left-out questions."""
    sections: list[Section] = []
    left_out: list[dict[str, str]] = []
    for question in survey.questions.all():
        kind = kind_of(question)
        description = designs.design_description(question)
        reason = None
        if description is None or not kind.randomized:
            reason = LEFT_OUT_DIRECT
        elif kind.paired:
            reason = LEFT_OUT_PAIRED
        elif description.get("epsilon") is None:
            reason = LEFT_OUT_NOT_DP
        if reason or description is None:
            left_out.append({"key": question.key, "reason": reason or LEFT_OUT_DIRECT})
        else:
            about = {"kind": question.kind, "text": question.text}
            about.update(kind.export_entry(question, survey))
            columns = kind.export_columns(question)
            arity = designs.report_arity(question)
            sections.append(Section(question.key, columns, description, about, arity=arity))
    return sections, left_out


def _collect(survey: Survey, sections: list[Section]) -> int:
    """Fill each section with its reports from the published submissions; returns n (their
    number). Input order does not matter: every section is then shuffled uniformly."""
    by_key = {section.key: section for section in sections}
    kinds = {q.key: kind_of(q) for q in survey.questions.all() if q.key in by_key}
    stored = (
        Submission.objects.filter(survey=survey, sealed=True)
        .values_list("answers", flat=True)
        .iterator(chunk_size=CHUNK)
    )
    n = 0
    for answers in stored:
        n += 1
        for key, section in by_key.items():
            value = answers.get(key)
            if value is None:
                continue  # not answered: nothing of it in the file (only the counts say so)
            cells = kinds[key].export_cells(key, value)
            section.reports.append([_cell(t, cells.get(c)) for c, t in section.columns])
    return n


def _cell(column_type: str, value: Any) -> csv_cells.Cell:
    return str(value) if column_type == "text" and value is not None else value


#: The file's composition, named in its guarantee (module notes).
COMPOSED = (
    "optimal: the sections' privacy profiles composed (docs/formulas.md#composing-the-sections)"
)
BASIC = "basic: the sum of the sections' ε and δ"


#: Seconds the composition may take before the file states the basic sum instead (a bound on
#: the time: each distinct section's profile costs up to a few seconds at 10⁶ reports).
COMPOSE_SECONDS = 120.0


def _composed(sections: list[Section], delta: float) -> float | None:
    """The file's ε at the total δ by composing the sections' profiles
    (:func:`dpcore.central.shuffle_compose.composed_epsilon`); None with fewer than two sections,
    when a profile cannot be represented, or after :data:`COMPOSE_SECONDS` (then basic
    composition is stated)."""
    parts = [
        shuffle_compose.Section(
            n=len(s.reports), local_epsilon=float(s.design["epsilon"]), k=s.arity
        )
        for s in sections
    ]
    try:
        return shuffle_compose.composed_epsilon(
            parts, delta, deadline=time.monotonic() + COMPOSE_SECONDS
        )
    except (ArithmeticError, TimeoutError):
        return None


def file_guarantee(sections: list[Section], respondents: int, delta: float) -> dict[str, Any]:
    """Per section (ε_q, δ_q), and the file's: the smaller of basic composition (Σ ε_q, Σ δ_q)
    and the sections' profiles composed at the same total δ (module notes)."""
    filled = [s for s in sections if s.reports]
    share = delta / len(filled) if filled else 0.0
    per_question = []
    for section in sections:
        local = float(section.design["epsilon"])
        one = _guarantee(n=len(section.reports), local_epsilon=local, delta=share, k=section.arity)
        per_question.append({"key": section.key, **one})
    epsilon = sum(q["epsilon"] for q in per_question)
    total_delta = sum(q["delta"] for q in per_question)
    composition = BASIC
    composed = _composed(sections, total_delta) if total_delta > 0.0 else None
    if composed is not None and composed < epsilon:
        epsilon, composition = composed, COMPOSED
    local_total = sum(q["local_epsilon"] for q in per_question)
    return {
        "epsilon": epsilon,
        "delta": total_delta,
        "n": respondents,
        "local_epsilon": local_total,
        # Each section states its own bound; the file's names them all ("+" when they differ).
        "method": "+".join(sorted({q["method"] for q in per_question if q["n"]})) or METHOD,
        "composition": composition,
        "gain": bool(per_question) and epsilon < local_total,
        "questions": per_question,
        "assumptions": list(ASSUMPTIONS),
    }


def build(survey: Survey) -> dict[str, Any]:
    """The file in both encodings from ONE shuffle, with their SHA-256 and the guarantee (the
    fields of :class:`surveys.models.ShuffledExport`)."""
    sections, left_out = plan(survey)
    respondents = _collect(survey, sections)
    for section in sections:
        fisher_yates(section.reports)
    guarantee = file_guarantee(sections, respondents, float(survey.budget_delta))
    guarantee["left_out"] = left_out  # what the guarantee does not cover, and why
    csv_text = "".join(_csv(sections))
    json_text = "".join(_json(survey, sections, guarantee))
    return {
        "csv_text": csv_text,
        "json_text": json_text,
        "csv_sha256": hashlib.sha256(csv_text.encode("utf-8")).hexdigest(),
        "json_sha256": hashlib.sha256(json_text.encode("utf-8")).hexdigest(),
        "guarantee": guarantee,
    }


def _csv(sections: list[Section]) -> Iterator[str]:
    """One column block per section, side by side; row i holds each section's i-th report (the
    blocks are shuffled independently, so a row joins nothing) and a shorter section's block
    ends in empty cells."""
    header = [column for s in sections for column, _ in s.columns]
    height = max((len(s.reports) for s in sections), default=0)
    blanks = {s.key: [None] * len(s.columns) for s in sections}

    def rows() -> Iterator[list[Any]]:
        for i in range(height):
            row: list[Any] = []
            for s in sections:
                row.extend(s.reports[i] if i < len(s.reports) else blanks[s.key])
            yield row

    yield from csv_cells.csv_chunks(header, rows())


def _json(survey: Survey, sections: list[Section], guarantee: dict[str, Any]) -> Iterator[str]:
    yield json.dumps({"survey": survey.slug, "file": "shuffled"})[:-1] + ', "questions": ['
    for index, s in enumerate(sections):
        head = {
            "key": s.key,
            **s.about,
            "columns": [column for column, _ in s.columns],
            "n": len(s.reports),
            "design": s.design,
        }
        yield ("," if index else "") + json.dumps(head, allow_nan=False)[:-1] + ', "reports": ['
        yield json.dumps(s.reports, allow_nan=False)[1:-1] + "]}"  # one call: C speed
    yield "], " + json.dumps({"guarantee": guarantee}, allow_nan=False)[1:]
