"""Previewing a release: what it would cost and how accurate it would be — charges nothing."""

from __future__ import annotations

import math
from typing import Any

from dpcore.central import accounting
from dpcore.central import estimates as release_math
from privacy.selectors import survey_ledger_events
from privacy.services import advice
from privacy.services.plan import ReleasePlan, release_plan
from privacy.services.results import DEFAULT_CONFIDENCE
from privacy.specs import ReleaseSpec
from surveys.models import Survey


def _answered_per_group(survey: Survey, questions: Any, groups: int) -> dict[str, float]:
    """Per question, how many respondents answered it (its cells' sum over the published
    batches, as a release counts them), divided evenly over the groups: an optional or
    skip-logic question has fewer (docs/analysis.md#missing-answers)."""
    from surveys.selectors import survey_counts

    keys = [q.key for q in questions]
    counts = survey_counts(survey=survey, question_keys=keys)
    cells = counts.cells[""]
    return {key: sum(cells[key].values()) / groups for key in keys if key in cells}


def _selection_preview(survey: Survey, plan: ReleasePlan) -> dict[str, Any]:
    """A selection's cost and its data-independent error bounds (privacy.services.selection)."""
    from privacy.services.selection import selection_expected

    before = survey_ledger_events(survey=survey)
    delta = survey.budget_delta
    spent = accounting.epsilon_spent(before, delta)
    alone = accounting.epsilon_spent(plan.events, delta)
    after = accounting.epsilon_spent([*before, *plan.events], delta)
    assert plan.epsilon is not None
    return {
        "mechanism": plan.mechanism,
        "statistic": plan.statistic,
        "q": plan.quantile,
        "questions": selection_expected(
            questions=plan.question_objects,
            statistic=plan.statistic,
            q=plan.quantile,
            epsilon=plan.epsilon,
        ),
        "group_by": None,
        "contributions": plan.contributions,
        "l1_sensitivity": plan.l1_sensitivity,
        "l2_sensitivity": plan.l2_sensitivity,
        "noise_scale": plan.noise_scale,
        "epsilon_cost": alone.epsilon,
        "epsilon_spent_before": spent.epsilon,
        "epsilon_after": after.epsilon,
        "method_after": after.method,
        "epsilon_total": survey.budget_epsilon,
        "delta_total": delta,
        "fits": after.epsilon <= survey.budget_epsilon * (1 + accounting.BUDGET_RELATIVE_SLACK),
        "suggested_parameter": "epsilon",
        "useful": True,  # no ±10 pp target applies to a selection: its bound is stated instead
        "default_epsilon": None,
        "default_reason": "selection",
    }


def release_preview(*, survey: Survey, spec: ReleaseSpec) -> dict[str, Any]:
    """What a release would cost and how accurate it would be — charges nothing.

    ``spec`` is a request validated by :class:`privacy.inputs.ReleaseRequestSerializer`.

    Expected errors use :func:`dpcore.central.calibration.expected_estimate_error` (worst
    case over the design's feasible λ) at the survey's current number of respondents (its
    planned n while there are none), divided evenly over the groups when grouping. For a number
    question the expected SE of the mean is :func:`dpcore.central.estimates.number_estimate`'s
    formula at that n with the worst-case mean² = B²: ((max − min)/2)²/n + (V_S + B²·V_n)/n²; its
    ``expected_sum_std_error`` is the noise SD of the released sum (s·√Var(η_S)).

    The advice fields (``useful``, ``negative_count_chance``, ``suggested_value``,
    ``default_epsilon``…) are explained in :mod:`privacy.services.advice`.
    """
    from surveys.selectors import survey_respondent_count

    plan = release_plan(survey=survey, spec=spec)
    if plan.noiser is None:
        return _selection_preview(survey, plan)
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
    n_group = max(1.0, n / groups)
    answered = _answered_per_group(survey, plan.question_objects, groups) if respondents else None
    per_question = advice.question_errors(
        questions=plan.question_objects,
        noiser=plan.noiser,
        n_group=n_group,
        z=z,
        answered=answered,
    )
    # Suggest in the parameter the request was made in: ρ for gaussian with rho, else ε.
    mechanism = plan.noiser.mechanism
    by_rho = mechanism.parameter_name == "rho"
    suggested = advice.suggested_value(
        questions=plan.question_objects,
        mechanism=mechanism,
        contributions=plan.contributions,
        n_group=n_group,
        z=z,
    )
    default, default_reason = (None, "rho")
    if not by_rho:
        default, default_reason = advice.default_epsilon(
            suggested=suggested,
            contributions=plan.contributions,
            mechanism=mechanism,
            before=before,
            budget_delta=delta,
            budget_epsilon=survey.budget_epsilon,
            spent=spent.epsilon,
        )
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
        # Advice for the panel (privacy.services.advice): targets, warnings, a default.
        "respondents_per_group": n_group,
        "useful_half_width": advice.USEFUL_HALF_WIDTH,
        "useful": all(q["useful"] for q in per_question),
        "negative_count_chance": advice.negative_count_chance(
            questions=plan.question_objects, unit_variance=plan.noise_variance, n_group=n_group
        ),
        "negative_count_warning": advice.NEGATIVE_COUNT_WARNING,
        "suggested_parameter": "rho" if by_rho else "epsilon",
        "suggested_value": suggested,
        "default_epsilon": default,
        "default_reason": default_reason,
    }
