"""The dashboard's analysis panels (server-rendered, no JavaScript needed): the regression
picker (logistic, or linear for a number outcome) with its coefficient table and odds-ratio
chart (logistic only), and the comparisons under the cross-tab.

``surveys.pages.dashboard`` calls :func:`regression_context` (the analysis section) and
:func:`comparisons` (the results section); the numbers come from
surveys.analysis.regression, the same code as the API (docs/analysis.md).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from django.urls import reverse

from deniable.errors import InvalidInput
from surveys.analysis import correlation as correlation_analysis
from surveys.analysis import joint as joint_analysis
from surveys.analysis import regression as analysis
from surveys.api.estimates import SurveyEstimatesOut
from surveys.inputs.analysis import regression_query
from surveys.kinds import kind_of
from surveys.models import Question, Survey
from surveys.selectors import SurveyEstimates

# viewBox 100 wide; each term's label sits on its own line above its interval, so the labels can
# be large enough to read on a 360 px phone (≥ 12 px: 4.4 units × ~2.9 px per unit).
CHART_LEFT, CHART_WIDTH, ROW_H, TOP = 4.0, 92.0, 12.0, 4.0


def _or_chart(body: dict[str, Any]) -> dict[str, Any] | None:
    """Geometry of the odds-ratio chart: a dot and interval per term on a log axis (SVG units)."""
    shown = [
        c
        for c in body["coefficients"]
        if c["term"] != "(Intercept)" and c["ci_low"] is not None and c["odds_ratio"] is not None
    ]
    if not shown:
        return None
    lows = [max(c["ci_low"], -7.0) for c in shown]
    highs = [min(c["ci_high"], 7.0) for c in shown]
    lo, hi = min([*lows, 0.0]) - 0.2, max([*highs, 0.0]) + 0.2  # log scale, always showing OR 1

    def x(log_or: float) -> float:
        return CHART_LEFT + CHART_WIDTH * (min(max(log_or, lo), hi) - lo) / (hi - lo)

    rows = []
    for i, (c, a, b) in enumerate(zip(shown, lows, highs, strict=True)):
        y = TOP + i * ROW_H + 8
        rows.append(
            {
                "term": c["term"],
                "y": y,
                "text_y": y - 3.0,
                "x": x(c["estimate"]),
                "x_lo": x(a),
                "x_hi": x(b),
                "odds_ratio": c["odds_ratio"],
                "or_low": math.exp(min(c["ci_low"], 700.0)),
                "or_high": math.exp(min(c["ci_high"], 700.0)),
            }
        )
    height = TOP + len(rows) * ROW_H + 10
    ticks = []
    for value in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 500):
        if lo <= math.log(value) <= hi:
            ticks.append({"x": x(math.log(value)), "label": f"{value:g}"})
    return {"rows": rows, "height": height, "one_x": x(0.0), "axis_y": height - 6,
            "left": CHART_LEFT, "label_y": height - 1, "ticks": ticks}  # fmt: skip


def _regression(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    outcome = request.GET.get("outcome")
    predictors = [p for p in request.GET.getlist("predictors") if p]
    family = request.GET.get("family") or "logistic"
    ctx: dict[str, Any] = {"outcome": outcome, "predictors": predictors, "family": family}
    if not outcome:
        return ctx
    picked = {"outcome": outcome, "predictors": ",".join(predictors), "family": family}
    try:
        wanted = regression_query(picked)
        body = analysis.survey_regression(
            survey=survey,
            outcome=wanted.outcome,
            predictors=wanted.predictors,
            confidence=wanted.confidence,
            family=wanted.family,
        )
    except InvalidInput as exc:
        ctx["errors"] = [f"{field}: {' '.join(msgs)}" for field, msgs in exc.errors.items()]
        return ctx
    if family == "logistic":  # the default: the CSV link as before
        del picked["family"]
    query = urlencode({**picked, "format": "csv"})
    ctx.update(
        body=body,
        chart=_or_chart(body),
        csv_url=f"{reverse('api-survey-regression', args=[survey.slug])}?{query}",
    )
    return ctx


def _correlation(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    """The correlation panel: the chosen pair's corrected r (the API's body), or its errors."""
    x, y = request.GET.get("cor_x"), request.GET.get("cor_y")
    ctx: dict[str, Any] = {"x": x, "y": y}
    if not x:
        return ctx
    try:
        ctx["body"] = correlation_analysis.correlation_body(survey, x=x, y=y, confidence=0.95)
    except InvalidInput as exc:
        ctx["errors"] = [f"{field}: {' '.join(msgs)}" for field, msgs in exc.errors.items()]
    return ctx


def _joint(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    """The joint panel: a multi question's pattern estimates (the API's ``joint``), or errors."""
    key = request.GET.get("joint")
    ctx: dict[str, Any] = {"key": key}
    if not key:
        return ctx
    try:
        body = joint_analysis.joint_body(survey, key, confidence=0.95)
    except InvalidInput as exc:
        ctx["errors"] = [f"{field}: {' '.join(msgs)}" for field, msgs in exc.errors.items()]
        return ctx
    body["cells"] = [
        {**cell, **{f"{k}_pp": _pp(cell[k]) for k in ("estimate", "ci_low", "ci_high")}}
        for cell in body["cells"]
    ]
    ctx["body"] = body
    return ctx


def _pp(value: float | None) -> float | None:
    return None if value is None else 100.0 * value


def _comparisons(estimates: SurveyEstimates, survey: Survey) -> list[dict[str, Any]]:
    # The API's body (the same serializer as GET …/estimates/), then the same comparisons.
    body = dict(SurveyEstimatesOut(estimates).data)
    analysis.add_comparisons(body, survey=survey)
    out = []
    for q in body["questions"]:
        if "comparison" not in q:
            continue
        comparison = dict(q["comparison"])
        comparison["differences"] = [
            {**d, **{f"{k}_pp": _pp(d[k]) for k in ("difference", "ci_low", "ci_high")}}
            for d in comparison["differences"]
        ]
        # A choice's or multi's differences are per option (the table has an Option column).
        per_option = any("option" in d for d in comparison["differences"])
        # Cheating detection's are per parameter (π, γ): the same column, named Parameter.
        per_parameter = any("parameter" in d for d in comparison["differences"])
        out.append(
            {
                "key": q["key"],
                "text": q["text"],
                "kind": q["kind"],
                "per_option": per_option or per_parameter,
                "column": "Parameter" if per_parameter else "Option",
                **comparison,
            }
        )
    return out


def regression_context(
    request: HttpRequest, survey: Survey, questions: list[Question]
) -> dict[str, Any]:
    """The analysis section's context (``surveys.pages.dashboard``): the regression picker and,
    once an outcome is chosen, its fit."""
    randomized = [q for q in questions if kind_of(q).regression_outcome and analysis.is_linear(q)]
    numbers = [q for q in questions if kind_of(q).linear_outcome]
    direct = [q for q in questions if kind_of(q).regression_predictor]
    return {
        "regression": _regression(request, survey),
        "regression_outcomes": randomized,
        "regression_predictors": direct,
        # family=linear (docs/analysis.md#linear-regression): a number outcome, and randomized
        # yes/no questions among the predictors.
        "regression_linear_outcomes": numbers,
        "regression_latent_predictors": randomized,
        "regression_available": bool(randomized and direct)
        or bool(numbers and (randomized or len(direct) > 1)),
        "correlation": _correlation(request, survey),
        "joint": _joint(request, survey),
        "joint_questions": [q for q in questions if joint_analysis.joint_allowed(q)],
        "correlation_variables": [q for q in questions if correlation_analysis.correlatable(q)],
    }


def comparisons(estimates: SurveyEstimates, survey: Survey, group_by: str | None) -> list[Any]:
    """The results section's comparisons between the groups of a breakdown (none without one)."""
    return _comparisons(estimates, survey) if group_by else []
