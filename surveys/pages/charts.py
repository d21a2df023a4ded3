"""Presenters of the researcher page: estimate table rows, the group-by cross-table and the SVG
geometry of the interval chart, from the typed estimates of ``surveys.selectors.estimates``.

Pure functions (no request, no database), so the geometry is unit-tested
(tests/surveys/pages/test_charts.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from surveys.kinds import kind_of
from surveys.kinds._chart_rows import pct
from surveys.selectors.estimates import QuestionEstimate, SurveyEstimates

# The chart's frame, in SVG user units (the template's viewBox is 100 wide).
ROW_H, TOP, LEFT, WIDTH = 12.0, 8.0, 4.0, 92.0
TICKS = (0, 25, 50, 75, 100)


@dataclass
class _Header:
    """What the registry reads to find an estimate's kind (its stored kind and design)."""

    key: str
    kind: str
    design: Any
    options: Any = None


def _entry_rows(e: QuestionEstimate) -> list[dict[str, Any]]:
    base = {"key": e.key, "text": e.text, "kind": e.kind, "epsilon": e.epsilon}
    return kind_of(_Header(e.key, e.kind, e.design)).chart_rows(e, base)


def estimate_rows(entries: Sequence[QuestionEstimate]) -> list[dict[str, Any]]:
    """Flatten the estimates into table rows (one per yes/no or number question, or per option)."""
    return [row for e in entries for row in _entry_rows(e)]


def crosstab(estimates: SurveyEstimates, group_by: str | None) -> dict[str, Any] | None:
    """ONE table for a group-by: rows = questions/options, columns = all respondents + groups.

    Each cell is the row's estimate with its interval and n in that group (instead of one full
    table per group, which took seven phone screens). The group-by question itself is left out
    of the rows: within its own groups its shares are 0% or 100% by construction.
    """
    if not group_by or not estimates.groups:
        return None
    overall = [r for r in estimate_rows(estimates.questions) if r["key"] != group_by]
    by_group: list[dict[str, Any]] = [
        {
            "group": g.group,
            "respondents": g.respondents,
            "suppressed": g.suppressed,  # fewer than k respondents: no figures (its cells "—")
            "rows": {(r["key"], r["label"]): r for r in estimate_rows(g.questions)},
        }
        for g in estimates.groups
    ]
    rows = []
    for r in overall:
        cells = [r] + [g["rows"].get((r["key"], r["label"])) for g in by_group]
        rows.append({"key": r["key"], "text": r["text"], "label": r["label"],
                     "direct": r["direct"], "cells": cells})  # fmt: skip
    columns = [
        {"group": "All respondents", "respondents": estimates.respondents, "suppressed": False}
    ] + [
        # ``suppressed``: a group with fewer than k published respondents (issue 21.15).
        {"group": g["group"], "respondents": g["respondents"], "suppressed": g["suppressed"]}
        for g in by_group
    ]
    for row in rows:  # each cell with its column, for the stacked phone layout's labels
        row["labeled"] = [
            {"column": c, "cell": cell} for c, cell in zip(columns, row["cells"], strict=True)
        ]
    suppressed = any(c["suppressed"] for c in columns)
    return {"columns": columns, "rows": rows, "any_suppressed": suppressed}


def _bar(i: int, r: dict[str, Any]) -> dict[str, Any]:
    """Row ``i``'s bar: a label line, then a bar to the estimate with its interval whiskers.

    y = TOP + i·ROW_H + 5 (the label sits in the 5 units above); x = LEFT + WIDTH·p for a
    proportion p. A missing interval bound collapses the whisker onto the estimate."""
    y = TOP + i * ROW_H + 5
    lo = r["ci_low"] if r["ci_low"] is not None else r["estimate"]
    hi = r["ci_high"] if r["ci_high"] is not None else r["estimate"]
    return {
        "label": f"{r['key']}: {r['label']}",
        "y": y,
        "text_y": y - 1.2,
        "bar_w": WIDTH * r["estimate"],
        "x_est": LEFT + WIDTH * r["estimate"],
        "x_lo": LEFT + WIDTH * lo,
        "x_hi": LEFT + WIDTH * hi,
        "mid": y + 2.5,
        "cap_top": y + 0.5,
        "cap_bottom": y + 4.5,
        "estimate_pct": pct(r["estimate"]),
        "ci_low_pct": pct(r["ci_low"]),
        "ci_high_pct": pct(r["ci_high"]),
    }


def interval_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Geometry for the interval chart: randomized proportions on a 0–100% axis (SVG units).

    Each row is a label line above a full-width bar, so the chart stays legible on a phone;
    direct questions, numbers and rows without an estimate are left out.
    """
    shown = [
        r for r in rows if r["proportion"] and not r.get("direct") and r["estimate"] is not None
    ]
    bars = [_bar(i, r) for i, r in enumerate(shown)]
    height = TOP + len(bars) * ROW_H + 3
    # The end labels are anchored inside the frame (large enough to read on a phone, they would
    # otherwise stick out of the viewBox).
    anchors = {TICKS[0]: "start", TICKS[-1]: "end"}
    ticks = [
        {"x": LEFT + WIDTH * t / 100, "label": f"{t}%", "anchor": anchors.get(t, "middle")}
        for t in TICKS
    ]
    return {
        "bars": bars,
        "height": height,
        "left": LEFT,
        "right": LEFT + WIDTH,
        "axis_y": height - 1,
        "ticks": ticks,
        "tick_y": 5,
    }
