"""Sensitivity and noise scaling per contribution (the derivation: :mod:`privacy.services.plan`).

A release is ``m`` contributions: one histogram per yes/no, choice or category question, two (grid
sum and count) per number question. A contribution of sensitivity Δ gets Δ·t or (Δσ)².
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from privacy import calibrate, release_math
from surveys.models import Question


def contribution_count(questions: Sequence[Question]) -> int:
    """m: one contribution per histogram question, two (sum, count) per number question."""
    return sum(2 if q.kind == Question.Kind.NUMBER else 1 for q in questions)


def contribution_sensitivities(questions: Sequence[Question]) -> list[int]:
    """Δ_j of every contribution, in order: 1 per histogram; K (grid sum) and 1 (count) per
    number question. Its length is :func:`contribution_count`."""
    out: list[int] = []
    for q in questions:
        out.extend([number_grid(q).sensitivity, 1] if q.kind == Question.Kind.NUMBER else [1])
    return out


@dataclass(frozen=True)
class NumberGrid:
    """A number question's design-time grid: step s, sum sensitivity K, float-safe N."""

    lo: float
    hi: float
    step: Fraction
    sensitivity: int
    max_respondents: int


def number_grid(question: Question) -> NumberGrid:
    """The grid of a number question, from its declared bounds only (never from the data)."""
    lo, hi = float(question.min_value), float(question.max_value)  # type: ignore[arg-type]
    step = release_math.grid_step(lo, hi)
    return NumberGrid(
        lo=lo,
        hi=hi,
        step=step,
        sensitivity=release_math.sum_sensitivity(lo, hi, step),
        max_respondents=release_math.max_safe_respondents(lo, hi, step),
    )


def scaled_parameter(mechanism: str, unit: Fraction, sensitivity: int) -> Fraction:
    """The sampler parameter for a contribution of sensitivity Δ: Δ·t (laplace) or Δ²·σ²."""
    if mechanism == "laplace":
        return unit * sensitivity
    return unit * sensitivity * sensitivity


def parameter_variance(mechanism: str, parameter: Fraction) -> float:
    """Variance of one draw at the exact sampler parameter (t, or σ²)."""
    if mechanism == "laplace":
        return calibrate.discrete_laplace_variance(float(parameter))
    return calibrate.discrete_gaussian_variance(math.sqrt(parameter))
