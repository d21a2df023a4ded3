"""``GET …/regression/`` (family logistic) with randomized yes/no predictors
(docs/analysis.md#randomized-predictors): the outcome's latent trait on direct predictors and on
the predictors' latent traits, each question through its own design (the math is
``dpcore.local.latent_logistic``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deniable.errors import InvalidInput
from dpcore.local.latent_logistic import MAX_LATENT, LatentLogisticFit, fit_latent_logistic
from surveys.analysis.regression_rows import LinearData, linear_data
from surveys.analysis.regression_shared import (
    fit_body,
    is_latent,
    latent_rows,
    require_respondents,
    split_predictors,
)
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Question, Survey


def latent_keys(questions: dict[str, Question], outcome: str, predictors: Sequence[str]) -> bool:
    """Whether a logistic query names a randomized predictor (this module's fit)."""
    return any(
        key != outcome and key in questions and is_latent(questions[key]) for key in predictors
    )


def validate_latent(
    questions: dict[str, Question], outcome: str, predictors: Sequence[str]
) -> tuple[Question, list[Question], list[Question]]:
    """``(outcome, direct, randomized)`` or a 400 naming ``outcome`` or ``predictors``."""
    out_q = questions.get(outcome)
    if out_q is None:
        raise InvalidInput.single("outcome", f"No question with key {outcome!r}.")
    refused = kind_of(out_q).outcome_error(outcome)
    if refused is not None:
        raise InvalidInput.single("outcome", refused)
    direct, latent = split_predictors(
        questions,
        outcome,
        predictors,
        max_latent=MAX_LATENT,
        refused="predictors must be category, number, or randomized yes/no questions.",
    )
    return out_q, direct, latent


def latent_logistic_regression(
    *,
    survey: Survey,
    questions: dict[str, Question],
    outcome: str,
    predictors: Sequence[str],
    confidence: float,
) -> dict[str, Any]:
    out_q, direct, latent = validate_latent(questions, outcome, predictors)
    data = linear_data(survey, out_q, direct, latent, reported=True)
    parameters = len(data.terms) + len(latent) + 2 ** len(latent) - 1
    require_respondents(int(sum(data.weight)), parameters)
    design = designs.question_design(out_q)
    shapes = [designs.question_design(q) for q in latent]
    fit = fit_latent_logistic(
        data.x,
        data.y,
        data.reports,
        c=design.c,
        d=design.d,
        predictor_c=[s.c for s in shapes],
        predictor_d=[s.d for s in shapes],
        terms=data.terms,
        latent_terms=data.latent_terms,
        weight=data.weight,
        confidence=confidence,
    )
    return _body(survey, out_q, latent, fit, data)


def _body(
    survey: Survey,
    outcome: Question,
    latent: list[Question],
    fit: LatentLogisticFit,
    data: LinearData,
) -> dict[str, Any]:
    return fit_body(
        survey,
        outcome,
        fit,
        data,
        design=designs.design_description(outcome),
        family="logistic",
        extra={"latent": latent_rows(latent, fit.prevalence)},
    )
