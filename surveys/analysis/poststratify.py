"""Post-stratified estimates (docs/analysis.md#post-stratification): each reported figure of a
question becomes Σ W_h·θ̂_h over the strata (the options of a direct category question) with
Var = Σ W_h²·Var_h — one formula, ``dpcore.poststratify.poststratified``, applied to every
figure a kind reports (a yes/no share, each option's share, a mean score, a mean, cheating
detection's π, γ, β, a category question's raw shares).

The per-stratum figures are the ones ``group_by`` reports (published batches only). θ̂_h is the
*unclipped* (unbiased) estimate, so the combination stays unbiased; the reported ``estimate`` is
the combination clipped to the parameter's range and the interval is the
[bounded interval](docs/formulas.md#bounded-interval) on that range with σ the combined SE (a
number's mean: mean ± z·SE clipped to [min, max], as unweighted). Counts (``n``, ``reported``,
``count``) stay the raw totals: they are what was observed, not estimates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from dpcore.local.bounded_interval import bounded_interval
from dpcore.poststratify import poststratified
from dpcore.stats import z_value
from surveys.kinds._estimates import (
    BinaryEstimate,
    CategoryEstimate,
    CheaterDetectionEstimate,
    ChoiceEstimate,
    EstimateFields,
    MultiEstimate,
    NumberEstimate,
    QuestionEstimate,
)

F = TypeVar("F", bound=EstimateFields)

#: |Σ shares − 1| allowed (then the shares are divided by their sum): census tables printed to 6
#: decimals sum to 1 within 5e-6 per row at most; anything further off is a mistake.
SHARE_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Strata:
    """The weights W_h (positive only) and, aligned, each stratum's estimates by question key."""

    weights: tuple[float, ...]
    entries: tuple[Mapping[str, QuestionEstimate], ...]
    confidence: float


def _combine(
    values: Sequence[float | None], ses: Sequence[float | None], strata: Strata,
    low: float, high: float,
) -> dict[str, float | None]:  # fmt: skip
    """Estimate, unclipped estimate, SE and interval of one figure on [low, high]."""
    if any(v is None for v in values):  # a stratum with no answer to this question
        return dict.fromkeys(("estimate", "estimate_unclipped", "std_error", "ci_low", "ci_high"))
    u, se = poststratified([float(v) for v in values if v is not None], ses, strata.weights)
    ci: tuple[float | None, float | None] = (None, None)
    if se is not None:
        ci = bounded_interval(u, se, low, high, strata.confidence)
    return {
        "estimate": min(max(u, low), high),
        "estimate_unclipped": u,
        "std_error": se,
        "ci_low": ci[0],
        "ci_high": ci[1],
    }


def _fields(parts: Sequence[F], strata: Strata, low: float, high: float) -> dict[str, Any]:
    return _combine(
        [p.estimate_unclipped for p in parts], [p.std_error for p in parts], strata, low, high
    )


def _strata_of(key: str, strata: Strata) -> list[Any]:
    return [entries[key] for entries in strata.entries]


def _binary(entry: BinaryEstimate, strata: Strata) -> BinaryEstimate:
    return replace(entry, **_fields(_strata_of(entry.key, strata), strata, 0.0, 1.0))


def _parameter(parts: Sequence[Mapping[str, float | None]], strata: Strata) -> dict[str, Any]:
    values = [p.get("estimate_unclipped") for p in parts]
    return _combine(values, [p.get("std_error") for p in parts], strata, 0.0, 1.0)


def _cheater(entry: CheaterDetectionEstimate, strata: Strata) -> CheaterDetectionEstimate:
    parts: list[CheaterDetectionEstimate] = _strata_of(entry.key, strata)
    names = ("honest_yes", "cheaters", "honest_no")
    changes: dict[str, Any] = _fields(parts, strata, 0.0, 1.0)
    for name in names:
        changes[name] = _parameter([getattr(p, name) for p in parts], strata)
    return replace(entry, **changes, at_boundary=any(p.at_boundary for p in parts))


def _choice(entry: ChoiceEstimate, strata: Strata) -> ChoiceEstimate:
    parts: list[ChoiceEstimate] = _strata_of(entry.key, strata)
    options = tuple(
        replace(option, **_fields([p.options[i] for p in parts], strata, 0.0, 1.0))
        for i, option in enumerate(entry.options)
    )
    score = entry.mean_score
    if score is not None:
        scores = [p.mean_score for p in parts]
        if all(s is not None for s in scores):
            fields = _fields([s for s in scores if s is not None], strata, score.min, score.max)
        else:
            fields = _combine([None], [None], strata, score.min, score.max)
        score = replace(score, **fields)
    return replace(entry, options=options, mean_score=score)


def _multi(entry: MultiEstimate, strata: Strata) -> MultiEstimate:
    parts: list[MultiEstimate] = _strata_of(entry.key, strata)
    options = tuple(
        replace(option, **_fields([p.options[i] for p in parts], strata, 0.0, 1.0))
        for i, option in enumerate(entry.options)
    )
    return replace(entry, options=options)


def _number(entry: NumberEstimate, strata: Strata) -> NumberEstimate:
    parts: list[NumberEstimate] = _strata_of(entry.key, strata)
    if any(p.mean is None for p in parts):
        return replace(entry, mean=None, std_error=None, ci_low=None, ci_high=None)
    low = -math.inf if entry.min is None else entry.min
    high = math.inf if entry.max is None else entry.max
    mean, se = poststratified([p.mean for p in parts if p.mean is not None],
                              [p.std_error for p in parts], strata.weights)  # fmt: skip
    if se is None:
        return replace(entry, mean=mean, std_error=None, ci_low=None, ci_high=None)
    z = z_value(strata.confidence)
    ci_low, ci_high = max(low, mean - z * se), min(high, mean + z * se)
    return replace(entry, mean=mean, std_error=se, ci_low=ci_low, ci_high=ci_high)


def _category(entry: CategoryEstimate, strata: Strata) -> CategoryEstimate:
    if entry.key not in strata.entries[0]:  # the post-stratifying question: its shares are W
        return entry
    parts: list[CategoryEstimate] = _strata_of(entry.key, strata)
    options = []
    for i, option in enumerate(entry.options):
        shares = [p.options[i].share for p in parts]
        share = None
        if all(s is not None for s in shares):
            share = poststratified([float(s or 0) for s in shares], [0.0] * len(shares),
                                   strata.weights)[0]  # fmt: skip
        options.append(replace(option, share=share))
    return replace(entry, options=tuple(options))


_COMBINE: dict[type, Callable[[Any, Strata], QuestionEstimate]] = {
    BinaryEstimate: _binary,
    CheaterDetectionEstimate: _cheater,
    ChoiceEstimate: _choice,
    MultiEstimate: _multi,
    NumberEstimate: _number,
    CategoryEstimate: _category,
}


def poststratify_entries(
    entries: Sequence[QuestionEstimate], strata: Strata
) -> tuple[QuestionEstimate, ...]:
    """Each overall entry with its figures replaced by their post-stratified combination."""
    return tuple(_COMBINE[type(entry)](entry, strata) for entry in entries)
