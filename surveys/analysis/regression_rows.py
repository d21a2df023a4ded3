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


_MISSING = object()  # an answer of a JSON type no question stores (object, array): never usable


def _decoded(kind: str | None, text: str | None) -> Any:
    """A JSON value from PostgreSQL's ``jsonb_typeof`` and ``->>`` text, as ``json.loads``
    would give it (a number as float: every use converts it to one)."""
    if kind == "number":
        return float(text) if text is not None else None
    if kind == "boolean":
        return text == "true"
    if kind == "string":
        return text
    return None if kind in (None, "null") else _MISSING


def _pattern_rows_fast(survey: Survey, questions: list[Question]) -> list[Any]:
    """``_pattern_rows`` on PostgreSQL without decoding a JSON document per cell in Python:
    each answer comes as its ``jsonb_typeof`` and its ``->>`` text (the linear fit reads ~10⁵
    distinct rows; ``json.loads`` per cell took most of its time: bench/RESULTS.md)."""
    names: dict[str, Any] = {}
    for i, q in enumerate(questions):
        names[f"k{i}"] = _JSONTypeOf(KeyTransform(q.key, "answers"))
        names[f"t{i}"] = KeyTextTransform(q.key, "answers", output_field=TextField())
    rows = (
        Submission.objects.filter(survey=survey, sealed=True)
        .annotate(**names)
        .values_list(*names)
        .annotate(count=Count("pk"))
        .order_by()
    )
    width = len(questions)
    return [
        (*(_decoded(row[2 * i], row[2 * i + 1]) for i in range(width)), row[-1]) for row in rows
    ]


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
    x: list[list[float]]
    y: list[float]
    reports: list[list[float]]
    weight: list[float]
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
    outcome_ok = (lambda v: isinstance(v, bool)) if reported else _is_number
    if connection.vendor == "postgresql":
        rows = _pattern_rows_fast(survey, [outcome, *direct, *latent])
    else:
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
