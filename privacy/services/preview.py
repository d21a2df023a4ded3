"""Previewing a release: what it would cost and how accurate it would be — charges nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from privacy import accounting, calibrate, release_math
from privacy.selectors import survey_ledger_events
from privacy.services.plan import release_plan
from privacy.services.results import DEFAULT_CONFIDENCE, linear_form
from privacy.services.sensitivity import number_grid, parameter_variance, scaled_parameter
from surveys.models import Question, Survey


def release_preview(*, survey: Survey, data: Mapping[str, Any]) -> dict[str, Any]:
    """What a release would cost and how accurate it would be — charges nothing.

    Expected errors use :func:`privacy.calibrate.expected_estimate_error` (worst case over the
    design's feasible λ) at the survey's current number of respondents (its planned n while
    there are none), divided evenly over the groups when grouping. For a number question the
    expected SE of the mean is :func:`privacy.release_math.number_estimate`'s formula at that n
    with the worst-case mean² = B²: ((max − min)/2)²/n + (V_S + B²·V_n)/n²; its
    ``expected_sum_std_error`` is the noise SD of the released sum (s·√Var(η_S)).
    """
    from surveys.selectors import survey_respondent_count

    plan = release_plan(survey=survey, data=data)
    before = survey_ledger_events(survey=survey)
    delta = survey.budget_delta
    spent = accounting.epsilon_spent(before, delta)
    alone = accounting.epsilon_spent(plan.events, delta)
    after = accounting.epsilon_spent([*before, *plan.events], delta)
    respondents = survey_respondent_count(survey=survey)
    n = float(respondents or survey.planned_n or 1)
    groups = 1
    if plan.group_by:
        group_q = next(q for q in survey.questions.all() if q.key == plan.group_by)
        groups = max(1, len(group_q.options))
    z = release_math.z_value(DEFAULT_CONFIDENCE)
    per_question = []
    n_group = max(1.0, n / groups)
    for q in plan.question_objects:
        entry: dict[str, Any] = {"key": q.key, "kind": q.kind}
        if q.kind == Question.Kind.NUMBER:
            grid = number_grid(q)
            sum_parameter = scaled_parameter(plan.mechanism, plan.noise_parameter, grid.sensitivity)
            sum_variance = float(grid.step) ** 2 * parameter_variance(plan.mechanism, sum_parameter)
            bound = max(abs(grid.lo), abs(grid.hi))
            half_range = (grid.hi - grid.lo) / 2.0
            se = math.sqrt(
                half_range**2 / n_group
                + (sum_variance + bound**2 * plan.noise_variance) / n_group**2
            )
            entry.update(
                grid_step=float(grid.step),
                sum_sensitivity=grid.sensitivity,
                expected_sum_std_error=math.sqrt(sum_variance),
            )
        else:
            c, d = linear_form(q)
            se = calibrate.expected_estimate_error(
                c=c, d=d, n=n_group, noise_variance=plan.noise_variance
            )
        entry.update(expected_std_error=se, expected_half_width=z * se)
        per_question.append(entry)
    return {
        "mechanism": plan.mechanism,
        "questions": per_question,
        "group_by": plan.group_by or None,
        "groups": groups,
        "contributions": plan.contributions,
        "l1_sensitivity": plan.l1_sensitivity,
        "l2_sensitivity": plan.l2_sensitivity,
        "noise_scale": plan.noise_scale,
        "analytic_sigma": plan.analytic_sigma,
        "rho": plan.rho,
        "count_std_error": math.sqrt(plan.noise_variance),
        "epsilon_cost": alone.epsilon,
        "epsilon_spent_before": spent.epsilon,
        "epsilon_after": after.epsilon,
        "method_after": after.method,
        "epsilon_total": survey.budget_epsilon,
        "delta_total": delta,
        "fits": after.epsilon <= survey.budget_epsilon * (1 + accounting.BUDGET_RELATIVE_SLACK),
        "respondents_assumed": int(n),
        "confidence": DEFAULT_CONFIDENCE,
    }
