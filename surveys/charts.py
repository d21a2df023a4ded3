"""Presenters of the researcher page: estimate table rows, the group-by cross-table and the SVG
geometry of the interval chart, from the typed estimates of ``surveys.selectors.estimates``.

Pure functions (no request, no database), so the geometry is unit-tested
(tests/surveys/test_charts.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from surveys.models import Question
from surveys.selectors.estimates import (
    CategoryEstimate,
    CheaterDetectionEstimate,
    ChoiceEstimate,
    MultiEstimate,
    QuestionEstimate,
    SurveyEstimates,
)

# The chart's frame, in SVG user units (the template's viewBox is 100 wide).
ROW_H, TOP, LEFT, WIDTH = 12.0, 8.0, 4.0, 92.0
TICKS = (0, 25, 50, 75, 100)


def pct(x: float | None) -> float | None:
    """A proportion as a percentage for display (0.268 → 26.8); None stays None."""
    return None if x is None else 100.0 * x


def _row(
    base: dict[str, Any],
    label: str,
    n: int,
    source: Any,
    rate: str | None,
    estimate: str = "estimate",
    *,
    proportion: bool = True,
    direct: bool = False,
) -> dict[str, Any]:
    """One table row from an estimate entry (or one of its options); absent fields are None.

    Proportions are also given as percentages (``*_pct``): the pages show 26.8%, not 0.268.
    ``clipped`` marks an estimate pinned to 0 or 1 because the debiased value fell outside.
    """
    row = {
        **base,
        "label": label,
        "n": n,
        "reported_rate": getattr(source, rate, None) if rate else None,
        "estimate": getattr(source, estimate, None),
        "std_error": getattr(source, "std_error", None),
        "ci_low": getattr(source, "ci_low", None),
        "ci_high": getattr(source, "ci_high", None),
        "proportion": proportion,
        "direct": direct,
    }
    unclipped = getattr(source, "estimate_unclipped", None)
    # Pinned at an edge: k-RR estimates are also projected onto the simplex, which moves
    # interior values a little; only a value held at 0 or 1 needs the clip note.
    row["clipped"] = (
        proportion
        and unclipped is not None
        and row["estimate"] in (0.0, 1.0)
        and unclipped != row["estimate"]
    )
    if proportion:
        for name in ("reported_rate", "estimate", "std_error", "ci_low", "ci_high"):
            row[f"{name}_pct"] = pct(row[name])
    return row


#: A crosswise question's one row: what its estimate is (its reports are SAME/DIFFERENT).
CROSSWISE_LABEL = "has the trait (estimated prevalence)"

#: Cheating detection's three shares, as the table labels them (π, γ, β).
CHEATER_LABELS = (
    ("honest_yes", "honest yes (π)"),
    ("cheaters", "cheaters: “no” whatever the device said (γ)"),
    ("honest_no", "honest no (β)"),
)


def _cheater_rows(base: dict[str, Any], e: CheaterDetectionEstimate) -> list[dict[str, Any]]:
    """π, γ and β, one row each; the first carries the overall reported YES rate and the note
    ``at_boundary`` (the ML estimate on the edge of the simplex: intervals less reliable)."""
    rows = []
    for name, label in CHEATER_LABELS:
        source = SimpleNamespace(**getattr(e, name), reported_yes_rate=e.reported_yes_rate)
        rate = "reported_yes_rate" if name == "honest_yes" else None
        row = _row(base, label, e.n, source, rate)
        row["at_boundary"] = e.at_boundary
        rows.append(row)
    return rows


def _entry_rows(e: QuestionEstimate) -> list[dict[str, Any]]:
    base = {"key": e.key, "text": e.text, "kind": e.kind, "epsilon": e.epsilon}
    if isinstance(e, CheaterDetectionEstimate):
        return _cheater_rows(base, e)
    if e.kind == Question.Kind.YES_NO and (e.design or {}).get("name") == "crosswise":
        # Issue 22.9: a crosswise report is SAME/DIFFERENT, not yes/no: the reported rate is the
        # share answering SAME and the estimate is the prevalence of the sensitive trait.
        row = _row(base, CROSSWISE_LABEL, e.n, e, "reported_yes_rate")
        row["reported_label"] = "SAME"
        return [row]
    if e.kind == Question.Kind.YES_NO:
        return [_row(base, "yes", e.n, e, "reported_yes_rate")]
    if isinstance(e, ChoiceEstimate):  # kind choice
        rows = [_row(base, o.option, e.n, o, "reported_rate") for o in e.options]
        if e.mean_score is not None:  # ordered (Likert): the debiased mean of the scores 1..k
            label = f"mean score ({e.mean_score.min}–{e.mean_score.max})"
            rows.append(_row(base, label, e.n, e.mean_score, None, proportion=False))
        return rows
    if isinstance(e, MultiEstimate):  # kind multi: one yes/no estimate per option
        return [_row(base, o.option, o.n, o, "reported_rate") for o in e.options]
    if isinstance(e, CategoryEstimate):  # kind category
        # Asked directly: the share is the estimate, with no randomization to undo.
        return [_row(base, o.option, e.n, o, "share", "share", direct=True) for o in e.options]
    return [_row(base, "mean", e.n, e, None, "mean", proportion=False)]


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
