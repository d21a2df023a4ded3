"""The researcher page's presenters (surveys/pages/charts.py): table rows, the cross-table and the
SVG
geometry of the interval chart. Pure: no database, no request."""

from __future__ import annotations

import pytest

from surveys.pages import charts
from surveys.selectors.estimates import (
    BinaryEstimate,
    CategoryEstimate,
    CategoryShare,
    ChoiceEstimate,
    GroupEstimates,
    NumberEstimate,
    OptionEstimate,
    SurveyEstimates,
)

HEAD = {"text": "?", "epsilon": None, "design": None}


def binary(key="b", estimate=0.5, lo=0.4, hi=0.6, unclipped=None):
    return BinaryEstimate(
        key=key, kind="yes_no", **{**HEAD, "epsilon": 1.0},
        n=10, reported_yes=5, reported_yes_rate=0.5,
        estimate=estimate, estimate_unclipped=estimate if unclipped is None else unclipped,
        std_error=0.05, ci_low=lo, ci_high=hi,
    )  # fmt: skip


def choice(key="c"):
    options = tuple(
        OptionEstimate(option=o, reported=5, reported_rate=0.5, estimate=e,
                       estimate_unclipped=e, std_error=0.1, ci_low=None, ci_high=None)
        for o, e in (("x", 0.25), ("y", 0.75))
    )  # fmt: skip
    return ChoiceEstimate(key=key, kind="choice", **HEAD, n=10, options=options)


def category(key="g", counts=(3, 1)):
    n = sum(counts)
    options = tuple(
        CategoryShare(option=o, count=c, share=c / n if n else None)
        for o, c in zip(("north", "south"), counts, strict=True)
    )
    return CategoryEstimate(key=key, kind="category", **HEAD, n=n, options=options)


def number(key="n"):
    return NumberEstimate(
        key=key, kind="number", **HEAD, n=4, min=0.0, max=10.0, mean=5.0,
        std_error=1.0, ci_low=3.0, ci_high=7.0,
    )  # fmt: skip


def test_pct():
    assert charts.pct(0.268) == pytest.approx(26.8)
    assert charts.pct(None) is None


def test_rows_one_per_binary_or_number_question_and_per_option():
    rows = charts.estimate_rows([binary(), choice(), category(), number()])
    assert [(r["key"], r["label"]) for r in rows] == [
        ("b", "yes"), ("c", "x"), ("c", "y"), ("g", "north"), ("g", "south"), ("n", "mean"),
    ]  # fmt: skip
    b, cx, _, gn, _, n = rows
    assert b["reported_rate"] == 0.5 and b["estimate_pct"] == pytest.approx(50.0)
    assert cx["estimate"] == 0.25 and cx["reported_rate"] == 0.5
    assert gn["direct"] and gn["estimate"] == 0.75 and gn["reported_rate"] == 0.75
    assert not n["proportion"] and n["estimate"] == 5.0 and "estimate_pct" not in n
    assert n["ci_low"] == 3.0 and n["ci_high"] == 7.0


def test_clipped_only_when_pinned_at_an_edge():
    assert charts.estimate_rows([binary(estimate=0.0, unclipped=-0.1)])[0]["clipped"]
    assert charts.estimate_rows([binary(estimate=1.0, unclipped=1.2)])[0]["clipped"]
    assert not charts.estimate_rows([binary(estimate=0.3, unclipped=0.31)])[0]["clipped"]
    assert not charts.estimate_rows([binary(estimate=1.0, unclipped=1.0)])[0]["clipped"]


def test_chart_geometry_of_one_bar():
    chart = charts.interval_chart(charts.estimate_rows([binary(estimate=0.5, lo=0.4, hi=0.6)]))
    (bar,) = chart["bars"]
    # y = TOP + 0·ROW_H + 5 = 13; x = LEFT + WIDTH·p = 4 + 92·p
    assert bar["y"] == 13.0 and bar["text_y"] == pytest.approx(11.8)
    assert bar["bar_w"] == pytest.approx(46.0)
    assert bar["x_est"] == pytest.approx(50.0)
    assert bar["x_lo"] == pytest.approx(4 + 92 * 0.4)
    assert bar["x_hi"] == pytest.approx(4 + 92 * 0.6)
    assert (bar["mid"], bar["cap_top"], bar["cap_bottom"]) == (15.5, 13.5, 17.5)
    assert bar["label"] == "b: yes"
    assert bar["estimate_pct"] == pytest.approx(50.0)
    assert chart["height"] == 8 + 12 + 3 and chart["axis_y"] == chart["height"] - 1
    assert (chart["left"], chart["right"], chart["tick_y"]) == (4.0, 96.0, 5)
    assert [t["x"] for t in chart["ticks"]] == pytest.approx([4, 27, 50, 73, 96])
    assert [t["label"] for t in chart["ticks"]] == ["0%", "25%", "50%", "75%", "100%"]


def test_chart_rows_step_down_and_skip_direct_number_and_missing():
    rows = charts.estimate_rows(
        [binary("a"), category(), number(), binary("z", estimate=None), choice()]
    )
    chart = charts.interval_chart(rows)
    assert [b["label"] for b in chart["bars"]] == ["a: yes", "c: x", "c: y"]
    assert [b["y"] for b in chart["bars"]] == [13.0, 25.0, 37.0]
    assert chart["height"] == 8 + 3 * 12 + 3


def test_a_missing_interval_collapses_onto_the_estimate():
    (bar,) = charts.interval_chart(charts.estimate_rows([binary(lo=None, hi=None)]))["bars"]
    assert bar["x_lo"] == bar["x_hi"] == bar["x_est"]
    assert bar["ci_low_pct"] is None and bar["ci_high_pct"] is None


def test_an_empty_chart():
    chart = charts.interval_chart([])
    assert chart["bars"] == [] and chart["height"] == 11.0


def _estimates(groups=None, group_by=None):
    return SurveyEstimates(
        survey="s", title="S", status="open", respondents=4, planned_n=10, estimate_batch=1,
        confidence=0.95, epsilon_local_total=1.0, questions=(binary(), category()),
        group_by=group_by, groups=groups,
    )  # fmt: skip


def test_crosstab_columns_rows_and_missing_cells():
    groups = (
        GroupEstimates("north", 3, (binary(estimate=0.2),)),
        GroupEstimates("south", 1, ()),
        GroupEstimates("east", None, (), suppressed=True),
    )
    table = charts.crosstab(_estimates(groups, "g"), "g")
    assert table["columns"] == [
        {"group": "All respondents", "respondents": 4, "suppressed": False},
        {"group": "north", "respondents": 3, "suppressed": False},
        {"group": "south", "respondents": 1, "suppressed": False},
        {"group": "east", "respondents": None, "suppressed": True},
    ]
    assert table["any_suppressed"] is True
    (row,) = table["rows"]  # the group-by question's own rows are left out
    assert (row["key"], row["label"], row["direct"]) == ("b", "yes", False)
    overall, north, south, east = row["cells"]
    assert overall["estimate"] == 0.5 and north["estimate"] == 0.2 and south is east is None


def test_no_crosstab_without_group_by():
    assert charts.crosstab(_estimates(), None) is None
    assert charts.crosstab(_estimates(groups=()), "g") is None
