"""The regression's data (docs/analysis.md#regression): a survey's published reports pooled into
covariate patterns, and what the fit's baseline really is.

A ``category`` predictor is dummy coded against its **reference**: the first option (in the
question's order) that has respondents among the fitted rows — not blindly the first option,
which may have no rows (issue 22 item 7: *Children*, asked from 30 on, leaves ``18-29`` empty,
and the fit then dropped another level as "not identified" and compared with it). Options without
fitted respondents get no term and are listed in ``dropped_levels``. ``n_excluded`` counts the
published respondents left out because the outcome or a predictor was not answered (optional, or
hidden by skip logic) — both counts move only when a batch is published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import CharField, Count, Func, TextField
from django.db.models.fields.json import KeyTextTransform, KeyTransform

from surveys.kinds import kind_of
from surveys.models import Question, Submission, Survey

INTERCEPT = "(Intercept)"


@dataclass(frozen=True)
class RegressionData:
    """Pooled patterns (design-matrix rows ``x``, reported yes and totals) and their baseline."""

    terms: list[str]
    x: list[list[float]]
    yes: list[float]
    total: list[float]
    reference: dict[str, str]
    dropped_levels: dict[str, list[str]]
    n_excluded: int


def _pattern_rows(survey: Survey, outcome: Question, predictors: list[Question]) -> list[Any]:
    """``[(outcome, p₁, …, pₖ, count)]``: one aggregate query over the published submissions."""
    names = {"o": KeyTransform(outcome.key, "answers")}
    names.update({f"p{i}": KeyTransform(q.key, "answers") for i, q in enumerate(predictors)})
    return list(
        Submission.objects.filter(survey=survey, sealed=True)
        .annotate(**names)
        .values_list(*names)
        .annotate(count=Count("pk"))
        .order_by()
    )


class _JSONTypeOf(Func):
    function = "jsonb_typeof"
    output_field = CharField()


def _typed_rows(survey: Survey, questions: list[Question]) -> Any:
    """``(typeof₁, text₁, …, count)`` per distinct pattern of the published reports."""
    names: dict[str, Any] = {}
    for i, q in enumerate(questions):
        names[f"k{i}"] = _JSONTypeOf(KeyTransform(q.key, "answers"))
        names[f"t{i}"] = KeyTextTransform(q.key, "answers", output_field=TextField())
    return (
        Submission.objects.filter(survey=survey, sealed=True)
        .annotate(**names)
        .values_list(*names)
        .annotate(count=Count("pk"))
        .order_by()
    )


def _usable(outcome: Any, values: Sequence[Any], predictors: list[Question]) -> bool:
    """Whether a pattern has a reported outcome and a valid answer to every predictor."""
    if not isinstance(outcome, bool):
        return False
    for value, q in zip(values, predictors, strict=True):
        if kind_of(q).has_options:  # a category predictor
            if value not in q.options:
                return False
        elif isinstance(value, bool) or not isinstance(value, int | float):
            return False
    return True


def _coding(
    predictors: list[Question], fitted: list[Any]
) -> tuple[list[str], dict[int, list[str]], dict[str, str], dict[str, list[str]]]:
    """``(terms, levels, reference, dropped)``: the intercept and each predictor's terms (a
    category's dummies against its reference), from the fitted rows ``(outcome, p₁, …, count)``."""
    present: list[set[Any]] = [{row[1 + i] for row in fitted} for i in range(len(predictors))]
    levels: dict[int, list[str]] = {}  # predictor index → coded options (reference first)
    reference: dict[str, str] = {}
    dropped: dict[str, list[str]] = {}
    terms = [INTERCEPT]
    for i, q in enumerate(predictors):
        if not kind_of(q).has_options:  # a number predictor
            terms.append(q.key)
            continue
        kept = [option for option in q.options if option in present[i]]
        dropped[q.key] = [option for option in q.options if option not in present[i]]
        levels[i] = kept
        if kept:
            reference[q.key] = kept[0]
        terms.extend(f"{q.key}={option}" for option in kept[1:])
    return terms, levels, reference, dropped


def _vector(values: Sequence[Any], levels: dict[int, list[str]]) -> list[float]:
    vector = [1.0]
    for i, value in enumerate(values):
        if i in levels:
            vector.extend(1.0 if value == option else 0.0 for option in levels[i][1:])
        else:
            vector.append(float(value))
    return vector


def regression_data(
    survey: Survey, outcome: Question, predictors: list[Question]
) -> RegressionData:
    rows = _pattern_rows(survey, outcome, predictors)
    published = sum(row[-1] for row in rows)
    fitted = [row for row in rows if _usable(row[0], row[1:-1], predictors)]
    terms, levels, reference, dropped = _coding(predictors, fitted)
    index: dict[tuple[float, ...], int] = {}
    x: list[list[float]] = []
    yes: list[float] = []
    total: list[float] = []
    for outcome_value, *values, count in fitted:
        vector = _vector(values, levels)
        at = index.setdefault(tuple(vector), len(x))
        if at == len(x):
            x.append(vector)
            yes.append(0.0)
            total.append(0.0)
        total[at] += count
        if outcome_value:
            yes[at] += count
    return RegressionData(
        terms=terms,
        x=x,
        yes=yes,
        total=total,
        reference=reference,
        dropped_levels=dropped,
        n_excluded=int(published - sum(total)),
    )


@dataclass(frozen=True)
class LinearData:
    """The rows of a regression with randomized predictors (docs/analysis.md#linear-regression):
    per distinct (outcome, predictors) pattern, the direct predictors' design row ``x``, the
    outcome ``y``, the randomized predictors' reports (0/1) and the number of respondents
    ``weight``."""

    terms: list[str]
    latent_terms: list[str]
    # Lists, or numpy arrays from the PostgreSQL path (``_linear_columns``).
    x: Any
    y: Any
    reports: Any
    weight: Any
    reference: dict[str, str]
    dropped_levels: dict[str, list[str]]
    n_excluded: int


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def linear_data(
    survey: Survey,
    outcome: Question,
    direct: list[Question],
    latent: list[Question],
    *,
    reported: bool = False,
) -> LinearData:
    """A number outcome (``reported``: a randomized yes/no outcome's report, as 1.0/0.0),
    direct predictors coded as for the logistic fit, and the reported answers of randomized
    yes/no predictors (their latent traits are the fit's business). A respondent missing any of
    them is left out (``n_excluded``)."""
    if connection.vendor == "postgresql":
        return _linear_columns(survey, outcome, direct, latent, reported)
    outcome_ok = (lambda v: isinstance(v, bool)) if reported else _is_number
    rows = _pattern_rows(survey, outcome, [*direct, *latent])
    published = sum(row[-1] for row in rows)
    split = 1 + len(direct)
    # ``_usable``'s checks with each predictor's kind looked up once, not once per row.
    options = [set(q.options) if kind_of(q).has_options else None for q in direct]

    def usable(row: Sequence[Any]) -> bool:
        for value, allowed in zip(row[1:split], options, strict=True):
            if (value not in allowed) if allowed is not None else not _is_number(value):
                return False
        return outcome_ok(row[0]) and all(isinstance(v, bool) for v in row[split:-1])

    fitted = [row for row in rows if usable(row)]
    terms, levels, reference, dropped = _coding(direct, [row[:split] for row in fitted])
    return LinearData(
        terms=terms,
        latent_terms=[q.key for q in latent],
        x=[_vector(row[1:split], levels) for row in fitted],
        y=[float(row[0]) for row in fitted],
        reports=[[1.0 if value else 0.0 for value in row[split:-1]] for row in fitted],
        weight=[float(row[-1]) for row in fitted],
        reference=reference,
        dropped_levels=dropped,
        n_excluded=int(published - sum(row[-1] for row in fitted)),
    )


def _usable_mask(kinds: list[Any], texts: list[Any], direct: list[Question], reported: bool) -> Any:
    """``_usable``'s checks on whole columns (``_linear_columns``)."""
    usable = kinds[0] == ("boolean" if reported else "number")
    for i, q in enumerate(direct, start=1):
        if kind_of(q).has_options:
            usable &= (kinds[i] == "string") & np.isin(texts[i], list(q.options))
        else:
            usable &= kinds[i] == "number"
    for i in range(1 + len(direct), len(kinds)):
        usable &= kinds[i] == "boolean"
    return usable


def _linear_columns(
    survey: Survey,
    outcome: Question,
    direct: list[Question],
    latent: list[Question],
    reported: bool,
) -> LinearData:
    """``linear_data`` on PostgreSQL, column by column with numpy (10⁵ distinct rows: the
    per-row Python of the generic path was half the endpoint's time, bench/RESULTS.md §17). Each
    answer arrives as its ``jsonb_typeof`` and ``->>`` text; the checks are ``_usable``'s: a
    number (or, ``reported``, a boolean) outcome, an option of each category, a number for each
    number predictor, a boolean report for each randomized predictor."""
    questions = [outcome, *direct, *latent]
    rows = list(_typed_rows(survey, questions))
    if not rows:
        return LinearData([INTERCEPT], [q.key for q in latent], [], [], [], [], {}, {}, 0)
    count = np.array([row[-1] for row in rows], dtype=np.float64)
    kinds = [np.array([row[2 * i] or "" for row in rows]) for i in range(len(questions))]
    texts = [np.array([row[2 * i + 1] or "" for row in rows]) for i in range(len(questions))]

    def numbers(i: int) -> Any:
        return np.where(kinds[i] == "number", texts[i], "nan").astype(np.float64)

    usable = _usable_mask(kinds, texts, direct, reported)
    terms, columns = [INTERCEPT], [np.ones(int(usable.sum()))]
    reference: dict[str, str] = {}
    dropped: dict[str, list[str]] = {}
    for i, q in enumerate(direct, start=1):
        if not kind_of(q).has_options:
            terms.append(q.key)
            columns.append(numbers(i)[usable])
            continue
        present = set(np.unique(texts[i][usable]).tolist())
        kept = [option for option in q.options if option in present]
        dropped[q.key] = [option for option in q.options if option not in present]
        if kept:
            reference[q.key] = kept[0]
        for option in kept[1:]:
            terms.append(f"{q.key}={option}")
            columns.append((texts[i][usable] == option).astype(np.float64))
    y = (texts[0] == "true").astype(np.float64) if reported else numbers(0)
    first = 1 + len(direct)
    reports = np.zeros((int(usable.sum()), len(latent)))
    for j in range(len(latent)):
        reports[:, j] = texts[first + j][usable] == "true"
    return LinearData(
        terms=terms,
        latent_terms=[q.key for q in latent],
        x=np.column_stack(columns),
        y=y[usable],
        reports=reports,
        weight=count[usable],
        reference=reference,
        dropped_levels=dropped,
        n_excluded=int(count.sum() - count[usable].sum()),
    )
