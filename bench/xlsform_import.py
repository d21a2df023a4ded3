"""Issue 25: XLSForm import time — ``python -m bench.xlsform_import [--quick]``.

A form of 500 questions (every kind, two languages, skip logic; written with openpyxl like a
hand-made one) through the import service: read (zip bounds, openpyxl), parse, validate. A survey
holds at most 100 questions (``MAX_QUESTIONS``), so the 500-question form ends in its 400 after
the full read, parse and validation — the work a large upload costs the server; the 100-question
form (the largest accepted) goes on to create the survey and its questions (rolled back).

Goal (issue 25): ≤ 2 s for the 500-question form. Median of the repeats.
"""

from __future__ import annotations

import io
import sys
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table, median_seconds

NAME = "xlsform_import"
DESCRIPTION = "XLSForm import of a 500-question (refused: > 100) and a 100-question form"
GOAL_SECONDS = 2.0


def unavailable() -> str | None:
    return stack.need(postgres=True)


def form(questions: int) -> bytes:
    """An .xlsx of ``questions`` rows cycling through the kinds, in English and Spanish."""
    from openpyxl import Workbook

    en, es = "label::English (en)", "label::Español (es)"
    rows: list[list[Any]] = [
        ["type", "name", en, es, "required", "relevant", "constraint", "deniable::design"]
    ]
    cycle = [
        ("select_one yes_no", "forced_response p_truth=0.5 p_yes=0.25 p_no=0.25", ""),
        ("select_one region", "", ""),
        ("integer", "", ". >= 0 and . <= 120"),
        ("select_one agree", "k_rr epsilon=2", ""),
        ("select_multiple drugs", "warner p=0.75", ""),
    ]
    for i in range(questions):
        kind, design, constraint = cycle[i % len(cycle)]
        relevant = f"${{q{i - 1}}} = 'north'" if kind == "integer" else ""
        rows.append(
            [
                kind,
                f"q{i}",
                f"Question {i}?",
                f"¿Pregunta {i}?",
                "yes",
                relevant,
                constraint,
                design,
            ]
        )
    choices = [["list_name", "name", en, es]]
    for list_name, names in {
        "yes_no": ["yes", "no"],
        "region": ["north", "south"],
        "agree": ["1", "2", "3"],
        "drugs": ["cannabis", "other"],
    }.items():
        choices += [[list_name, n, n.title(), n.upper()] for n in names]
    book = Workbook()
    book.remove(book.active)
    for name, sheet_rows in {
        "survey": rows,
        "choices": choices,
        "settings": [["form_title", "default_language"], ["Bench", "English (en)"]],
    }.items():
        sheet = book.create_sheet(name)
        for row in sheet_rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from django.db import transaction

    from deniable.errors import InvalidInput
    from surveys.services.xlsform import survey_import_xlsform

    owner = stack.bench_owner()
    repeats = 3 if quick else 11
    results: dict[str, Any] = {"goal_seconds": GOAL_SECONDS, "loadavg": stack.loadavg()}
    rows = []
    for questions in (500, 100):
        data = form(questions)
        outcome: dict[str, str] = {}

        def once(data: bytes = data, outcome: dict[str, str] = outcome) -> None:
            try:
                with transaction.atomic():
                    survey = survey_import_xlsform(owner=owner, data=data)
                    outcome["result"] = f"201 ({survey.questions.count()} questions)"
                    transaction.set_rollback(True)
            except InvalidInput as exc:
                outcome["result"] = f"400 {list(exc.errors)[:2]}"

        median, times = median_seconds(once, repeats)
        results[f"q{questions}"] = {
            "median_s": median,
            "times_s": times,
            "bytes": len(data),
            "result": outcome["result"],
        }
        rows.append(
            [questions, f"{len(data):,}", f"{median:.3f}", f"{max(times):.3f}", outcome["result"]]
        )
    print(markdown_table(["questions", "bytes", "median s", "max s", "result"], rows))
    met = results["q500"]["median_s"] <= GOAL_SECONDS
    print(
        f"\ngoal ≤ {GOAL_SECONDS} s for 500 questions: {'met' if met else 'NOT met'}"
        f" (load average {results['loadavg']:.1f})"
    )
    results["goal_met"] = met
    return results


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
