"""``GET …/regression/?family=linear`` (docs/analysis.md#linear-regression): a number outcome on
direct predictors and randomized yes/no predictors, each of the latter entering as its latent
trait (the model of ``RRreg::RRlin``; the math is ``dpcore.local.linear_rr``).

The reports are read as they are stored (the server never has a true answer): the fit sums each
respondent's likelihood over the latent traits its reports may hide, through each question's
design (P(report yes | trait) = c·trait + d).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deniable.errors import InvalidInput
from dpcore.local.linear_rr import MAX_LATENT, LinearFit, fit_linear_rr
from surveys.analysis.regression_rows import LinearData, linear_data
from surveys.analysis.regression_shared import (
    fit_body,
    latent_rows,
    require_respondents,
    split_predictors,
)
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Question, Survey


def validate_linear(
    questions: dict[str, Question], outcome: str, predictors: Sequence[str]
) -> tuple[Question, list[Question], list[Question]]:
    """``(outcome, direct predictors, randomized predictors)``, or a 400 naming ``outcome`` or
    ``predictors``."""
    out_q = questions.get(outcome)
    if out_q is None:
        raise InvalidInput.single("outcome", f"No question with key {outcome!r}.")
    if not kind_of(out_q).linear_outcome:
        raise InvalidInput.single(
            "outcome", f"{outcome!r} is {out_q.kind}: with family=linear the outcome is a number."
        )
    direct, latent = split_predictors(
        questions,
        outcome,
        predictors,
        max_latent=MAX_LATENT,
        refused="predictors of a linear regression must be category, number, or randomized "
        "yes/no questions.",
    )
    return out_q, direct, latent


def linear_regression(
    *,
    survey: Survey,
    questions: dict[str, Question],
    outcome: str,
    predictors: Sequence[str],
    confidence: float,
) -> dict[str, Any]:
    out_q, direct, latent = validate_linear(questions, outcome, predictors)
    data = linear_data(survey, out_q, direct, latent)
    parameters = len(data.terms) + len(latent) + 1 + 2 ** len(latent) - 1
    require_respondents(int(sum(data.weight)), parameters)
    shapes = [designs.question_design(q) for q in latent]
    fit = fit_linear_rr(
        data.x,
        data.y,
        data.reports if latent else [[] for _ in data.y],
        c=[s.c for s in shapes],
        d=[s.d for s in shapes],
        terms=data.terms,
        latent_terms=data.latent_terms,
        weight=data.weight,
        confidence=confidence,
    )
    return linear_body(survey, out_q, latent, fit, data)


def linear_body(
    survey: Survey, outcome: Question, latent: list[Question], fit: LinearFit, data: LinearData
) -> dict[str, Any]:
    return fit_body(
        survey,
        outcome,
        fit,
        data,
        design=None,  # the outcome is answered directly
        family="linear",
        extra={
            "sigma": fit.sigma,
            "sigma_std_error": fit.sigma_std_error,
            "latent": latent_rows(latent, fit.prevalence),
        },
    )
