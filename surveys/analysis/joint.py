"""The joint distribution of a randomized multi-select (docs/analysis.md#joint): the published
reports pooled into their 2^k option patterns with one ``GROUP BY`` query, then inverted through
the Kronecker misclassification matrix (``dpcore.local.joint``). Only reports are read."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.db.models.fields.json import KeyTransform

from deniable.errors import InvalidInput
from dpcore.local import joint
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Question, Submission, Survey
from surveys.selectors.surveys import question_by_key

#: The query parameter (and the field a 400 names).
FIELD = "joint"


def joint_allowed(question: Question) -> bool:
    """Whether ``question`` has a joint (a multi question of at most ``MAX_JOINT_OPTIONS``)."""
    return kind_of(question).design_per_option and len(question.options) <= joint.MAX_JOINT_OPTIONS


def joint_question(survey: Survey, key: str) -> Question:
    """The multi question ``key`` names, or a 400 naming ``joint``: unknown, not a multi
    question, or more than ``MAX_JOINT_OPTIONS`` options (2^k cells and a 2^k × 2^k covariance)."""
    question = question_by_key(survey=survey, key=key)
    if question is None:
        raise InvalidInput.single(FIELD, f"No question with key {key!r}.")
    if not kind_of(question).design_per_option:
        raise InvalidInput.single(
            FIELD, f"{key!r} is not a multi question (the joint is of a multi-select's options)."
        )
    if len(question.options) > joint.MAX_JOINT_OPTIONS:
        raise InvalidInput.single(
            FIELD,
            f"{key!r} has {len(question.options)} options; the joint is computed for at most "
            f"{joint.MAX_JOINT_OPTIONS} (2^{joint.MAX_JOINT_OPTIONS} patterns).",
        )
    return question


def pattern_counts(survey: Survey, question: Question) -> list[int]:
    """Published respondents per report pattern (``dpcore.local.joint.pattern_index`` order);
    respondents who did not answer the question are not counted."""
    options = list(question.options)
    counts = [0] * 2 ** len(options)
    rows = (
        Submission.objects.filter(survey=survey, sealed=True)
        .annotate(value=KeyTransform(question.key, "answers"))
        .values_list("value")
        .annotate(count=Count("pk"))
        .order_by()
    )
    for value, count in rows:
        if not isinstance(value, dict) or any(not isinstance(value.get(o), bool) for o in options):
            continue
        counts[joint.pattern_index([value[o] for o in options])] += count
    return counts


def joint_body(survey: Survey, key: str, *, confidence: float) -> dict[str, Any]:
    """``{"key", "options", "n", "cells": [{"selected", "reported", "reported_rate", "estimate",
    "estimate_unclipped", "std_error", "ci_low", "ci_high"}], "marginals", "covariance"}``
    (docs/api.md#estimates); figures are null when nobody answered."""
    question = joint_question(survey, key)
    design = designs.question_design(question)
    options = list(question.options)
    counts = pattern_counts(survey, question)
    est = joint.estimate_joint([(design.c, design.d)] * len(options), counts, confidence=confidence)
    n = sum(counts)
    cells = []
    for i, pattern in enumerate(joint.patterns(len(options))):
        cell: dict[str, Any] = {
            "selected": [o for o, on in zip(options, pattern, strict=True) if on],
            "reported": counts[i],
            "reported_rate": counts[i] / n if n else None,
        }
        for name in ("estimate", "estimate_unclipped", "std_error", "ci_low", "ci_high"):
            cell[name] = getattr(est, name)[i] if est is not None else None
        cells.append(cell)
    return {
        "key": key,
        "options": options,
        "n": n,
        "cells": cells,
        "marginals": [
            {"option": o, "estimate_unclipped": est.marginals[j] if est is not None else None}
            for j, o in enumerate(options)
        ],
        "covariance": [list(row) for row in est.covariance] if est is not None else None,
    }
