"""The correlation of a randomized yes/no question with a number question or another
randomized yes/no question (docs/analysis.md#correlation): the published reports pooled into
(x, y) patterns with one ``GROUP BY`` query, corrected for the designs' misclassification by
``dpcore.local.correlation`` (Fox & Tracy 1984, RRreg's ``RRcor``). Only reports are read."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.db.models.fields.json import KeyTransform

from deniable.errors import InvalidInput
from dpcore.local.correlation import DIRECT, Scale, correlation
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Question, Submission, Survey
from surveys.selectors.surveys import question_by_key


def _scale(question: Question) -> Scale | None:
    """A randomized binary question's (c, d); DIRECT for a number question; None otherwise."""
    kind = kind_of(question)
    if kind.randomized and kind.design_shape == "binary" and kind.linear_model:
        design = designs.question_design(question)
        return Scale(randomized=True, c=float(design.c), d=float(design.d))
    if not kind.randomized and not kind.has_options:
        return DIRECT
    return None


def correlatable(question: Question) -> bool:
    """Whether ``question`` may be ``x`` or ``y`` (the dashboard's picker lists these)."""
    return _scale(question) is not None


def _variable(survey: Survey, field: str, key: str | None) -> tuple[Question, Scale]:
    if not key:
        raise InvalidInput.single(field, "Required: a question key.")
    question = question_by_key(survey=survey, key=key)
    if question is None:
        raise InvalidInput.single(field, f"No question with key {key!r}.")
    scale = _scale(question)
    if scale is None:
        raise InvalidInput.single(
            field,
            f"{key!r} cannot be correlated: use a yes_no question (not cheater detection) or a "
            "number question.",
        )
    return question, scale


def _value(raw: Any, scale: Scale) -> float | None:
    if scale.randomized:
        return float(raw) if isinstance(raw, bool) else None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return float(raw)


def correlation_body(
    survey: Survey, *, x: str | None, y: str | None, confidence: float
) -> dict[str, Any]:
    """``{"survey", "x", "y", "n", "n_excluded", "confidence", "estimate", "estimate_unclipped",
    "observed", "std_error", "ci_low", "ci_high", "z", "p_value", "method"}``
    (docs/api.md#correlation)."""
    qx, sx = _variable(survey, "x", x)
    qy, sy = _variable(survey, "y", y)
    if qx.pk == qy.pk:
        raise InvalidInput.single("y", "x and y must be different questions.")
    rows = (
        Submission.objects.filter(survey=survey, sealed=True)
        .annotate(vx=KeyTransform(qx.key, "answers"), vy=KeyTransform(qy.key, "answers"))
        .values_list("vx", "vy")
        .annotate(count=Count("pk"))
        .order_by()
    )
    xs: list[float] = []
    ys: list[float] = []
    weights: list[float] = []
    published = 0
    for raw_x, raw_y, count in rows:
        published += count
        vx, vy = _value(raw_x, sx), _value(raw_y, sy)
        if vx is not None and vy is not None:
            xs.append(vx)
            ys.append(vy)
            weights.append(float(count))
    est = correlation(xs, ys, x_scale=sx, y_scale=sy, weights=weights, confidence=confidence)
    return {
        "survey": survey.slug,
        "x": qx.key,
        "y": qy.key,
        "method": "fox_tracy",
        "n": est.n,
        "n_excluded": published - est.n,
        "confidence": est.confidence,
        "estimate": est.estimate,
        "estimate_unclipped": est.estimate_unclipped,
        "observed": est.observed,
        "std_error": est.std_error,
        "ci_low": est.ci_low,
        "ci_high": est.ci_high,
        "z": est.z,
        "p_value": est.p_value,
    }
