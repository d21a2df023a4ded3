"""Every figure a kind reports is post-stratified the same way (surveys/analysis/poststratify.py):
the mean score on [1, k], each multi option, cheating detection's π, γ, β — hand-built strata,
no database."""

from __future__ import annotations

import math

import pytest

from dpcore.local.bounded_interval import bounded_interval
from surveys.analysis.poststratify import Strata, poststratify_entries
from surveys.kinds._estimates import (
    CheaterDetectionEstimate,
    ChoiceEstimate,
    MeanScore,
    MultiEstimate,
    MultiOptionEstimate,
    OptionEstimate,
)

W = (0.4, 0.6)
HEAD = {"text": "t", "epsilon": 1.0, "design": None}


def _fields(u: float, se: float | None) -> dict:
    return {"estimate": u, "estimate_unclipped": u, "std_error": se, "ci_low": 0.0, "ci_high": 1.0}


def _choice(score: float, se: float) -> ChoiceEstimate:
    options = tuple(
        OptionEstimate(**_fields(v, 0.05), option=o, reported=1, reported_rate=0.5)
        for o, v in (("a", 0.3), ("b", 0.7))
    )
    mean = MeanScore(**_fields(score, se), min=1, max=5)
    return ChoiceEstimate(key="likert", kind="choice", **HEAD, n=10, options=options,
                          mean_score=mean)  # fmt: skip


def _strata(entries: list) -> Strata:
    return Strata(weights=W, entries=tuple({e.key: e} for e in entries),
                  confidence=0.95)  # fmt: skip


def test_mean_score_on_its_own_range() -> None:
    overall = _choice(3.0, 0.2)
    parts = [_choice(4.9, 0.1), _choice(4.95, 0.3)]
    (out,) = poststratify_entries([overall], _strata(parts))
    u = 0.4 * 4.9 + 0.6 * 4.95
    se = math.sqrt(0.16 * 0.01 + 0.36 * 0.09)
    assert out.mean_score is not None
    assert out.mean_score.estimate_unclipped == pytest.approx(u)
    assert out.mean_score.std_error == pytest.approx(se)
    assert (out.mean_score.ci_low, out.mean_score.ci_high) == pytest.approx(
        bounded_interval(u, se, 1.0, 5.0, 0.95)
    )
    assert out.mean_score.ci_high <= 5.0 and out.n == 10  # raw n kept


def _multi(values: tuple[float, float], se: float | None) -> MultiEstimate:
    options = tuple(
        MultiOptionEstimate(**_fields(v, se), option=o, n=5, reported=2, reported_rate=0.4)
        for o, v in zip(("x", "y"), values, strict=True)
    )
    return MultiEstimate(key="m", kind="multi", **HEAD, n=5, epsilon_per_option=0.5,
                         options=options)  # fmt: skip


def test_multi_options_each_and_a_missing_se() -> None:
    parts = [_multi((0.2, -0.1), 0.1), _multi((0.5, 0.05), 0.2)]
    (out,) = poststratify_entries([_multi((0.0, 0.0), 0.1)], _strata(parts))
    x, y = out.options
    assert x.estimate_unclipped == pytest.approx(0.4 * 0.2 + 0.6 * 0.5)
    assert y.estimate_unclipped == pytest.approx(0.4 * -0.1 + 0.6 * 0.05)
    assert y.estimate == 0.0  # clipped to [0, 1]
    assert y.ci_low == 0.0 and y.ci_high is not None and y.ci_high > 0.0
    # A stratum with one answer (no SE): the estimate but no SE or interval.
    (out,) = poststratify_entries([_multi((0.0, 0.0), 0.1)],
                                  _strata([_multi((0.2, 0.1), None), parts[1]]))  # fmt: skip
    assert out.options[0].std_error is None and out.options[0].ci_low is None
    assert out.options[0].estimate_unclipped == pytest.approx(0.4 * 0.2 + 0.6 * 0.5)


def _cheater(pi: float, gamma: float, at_boundary: bool) -> CheaterDetectionEstimate:
    def param(v: float) -> dict:
        return _fields(v, 0.1)

    return CheaterDetectionEstimate(
        key="c", kind="yes_no", **HEAD, **_fields(pi, 0.1), n=20, reported_yes=8,
        reported_yes_rate=0.4, honest_yes=param(pi), cheaters=param(gamma),
        honest_no=param(1 - pi - gamma), at_boundary=at_boundary,
        groups=({"group": 1, "n": 10, "reported_yes": 4},),
    )  # fmt: skip


def test_cheater_detection_parameters() -> None:
    parts = [_cheater(0.3, 0.1, False), _cheater(0.1, 0.2, True)]
    (out,) = poststratify_entries([_cheater(0.2, 0.15, False)], _strata(parts))
    assert out.estimate_unclipped == pytest.approx(0.4 * 0.3 + 0.6 * 0.1)
    assert out.honest_yes["estimate_unclipped"] == pytest.approx(out.estimate_unclipped)
    assert out.cheaters["estimate_unclipped"] == pytest.approx(0.4 * 0.1 + 0.6 * 0.2)
    assert out.honest_no["std_error"] == pytest.approx(math.sqrt(0.16 + 0.36) * 0.1)
    assert out.at_boundary is True and out.groups == parts[0].groups[:1]
