"""The corrected correlation (dpcore.local.correlation; docs/formulas.md#correlation): RRreg's
RRcor formula recomputed independently, and Monte-Carlo checks of the estimate and its SE."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.errors import ArgumentError
from dpcore.local.correlation import DIRECT, Scale, correlation

COIN = Scale(randomized=True, c=0.5, d=0.25)


def _rrcor(z, y, c, d):
    """RRreg's RRcor for one RR variable (mixture form p.truth = c, y.mu = d/(1 − c)) and one
    direct: cor(x.est, y)·√(1 + q), q = mask.var/x.var (R/RRcor.R, get.quotient)."""
    pt, mu = c, d / (1 - c)
    x_est = (z - (1 - pt) * mu) / pt
    pi = x_est.mean()
    x_var = pi * (1 - pi)
    mask_var = (1 - pt) / pt * (x_var + mu * (1 - mu) / pt + (pi - mu) ** 2)
    return stats.pearsonr(x_est, y)[0] * math.sqrt(1 + mask_var / x_var)


def _simulate(rng, n, pi, slope):
    x = (rng.random(n) < pi).astype(float)
    y = slope * x + rng.normal(size=n)
    return x, y


def _report(rng, x, scale):
    return (rng.random(len(x)) < scale.c * x + scale.d).astype(float)


def test_equals_rrcor_formula():
    rng = np.random.default_rng(1)
    x, y = _simulate(rng, 500, 0.3, 0.8)
    z = _report(rng, x, COIN)
    got = correlation(z, y, x_scale=COIN, y_scale=DIRECT)
    assert got.estimate_unclipped == pytest.approx(_rrcor(z, y, 0.5, 0.25), rel=1e-10)
    assert got.observed == pytest.approx(stats.pearsonr(z, y)[0], rel=1e-10)


def test_direct_variables_give_pearson_and_its_delta_se():
    rng = np.random.default_rng(2)
    x, y = _simulate(rng, 400, 0.4, 0.5)
    got = correlation(x, y, x_scale=DIRECT, y_scale=DIRECT)
    assert got.estimate == pytest.approx(stats.pearsonr(x, y)[0], rel=1e-10)
    # Non-normal data: the delta-method SE against a bootstrap (B = 4000; the bootstrap SE's own
    # relative error ≈ 1/√(2B) ≈ 1.1 %, so 10 % is ~9 of its SEs).
    boot = []
    for _ in range(4000):
        i = rng.integers(0, 400, 400)
        boot.append(np.corrcoef(x[i], y[i])[0, 1])
    assert got.std_error == pytest.approx(float(np.std(boot)), rel=0.10)


def test_pooled_patterns_equal_the_rows():
    rng = np.random.default_rng(3)
    z1 = _report(rng, (rng.random(300) < 0.4).astype(float), COIN)
    z2 = _report(rng, (rng.random(300) < 0.6).astype(float), COIN)
    rows = correlation(z1, z2, x_scale=COIN, y_scale=COIN)
    cells = [(a, b) for a in (0.0, 1.0) for b in (0.0, 1.0)]
    counts = [float(np.sum((z1 == a) & (z2 == b))) for a, b in cells]
    pooled = correlation(
        [a for a, _ in cells], [b for _, b in cells], x_scale=COIN, y_scale=COIN, weights=counts
    )
    assert pooled.estimate_unclipped == pytest.approx(rows.estimate_unclipped, rel=1e-12)
    assert pooled.std_error == pytest.approx(rows.std_error, rel=1e-9)


@pytest.mark.parametrize("both_randomized", [False, True])
def test_monte_carlo_unbiased_and_se_calibrated(both_randomized):
    """300 samples of n = 2 000: the true correlation r* (computed from the truths of a huge
    sample) vs the mean of r̂ — within 5 SE of the mean (sd/√300); and the mean delta SE vs the
    empirical sd of r̂ within 20 % (the sd's relative MC error ≈ 1/√600 ≈ 4 %: 5 of its SEs)."""
    rng = np.random.default_rng(20261127 + both_randomized)
    pi, slope, n = 0.3, 0.7, 2000
    big_x, big_y = _simulate(rng, 2_000_000, pi, slope)
    y_scale = DIRECT
    if both_randomized:  # Y: a binary trait correlated with X
        big_y = (rng.random(len(big_x)) < 0.2 + 0.5 * big_x).astype(float)
        y_scale = COIN
    truth = np.corrcoef(big_x, big_y)[0, 1]
    estimates, ses = [], []
    for _ in range(300):
        x, y = _simulate(rng, n, pi, slope)
        if both_randomized:
            y = (rng.random(n) < 0.2 + 0.5 * x).astype(float)
            y = _report(rng, y, COIN)
        got = correlation(_report(rng, x, COIN), y, x_scale=COIN, y_scale=y_scale)
        estimates.append(got.estimate_unclipped)
        ses.append(got.std_error)
    sd = float(np.std(estimates, ddof=1))
    assert abs(np.mean(estimates) - truth) < 5 * sd / math.sqrt(300)
    assert np.mean(ses) == pytest.approx(sd, rel=0.20)


def test_degenerate_and_bad_input():
    assert (
        correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], x_scale=COIN, y_scale=DIRECT).estimate is None
    )
    with pytest.raises(ArgumentError):
        correlation([0.0, 2.0], [1.0, 2.0], x_scale=COIN, y_scale=DIRECT)
    with pytest.raises(ArgumentError):
        correlation([0.0, 1.0], [1.0], x_scale=COIN, y_scale=DIRECT)


def test_equals_rrreg_rrcor_fixtures():
    """RRreg 0.7.6's RRcor on the deterministic data of fixtures/rrcor.R (its output committed
    as fixtures/rrcor.json): Kuk p = (0.75, 0.25) → c = ½, d = ¼; Kuk (0.8, 0.1) → c = 0.7,
    d = 0.1; Warner p = 0.8 → c = 0.6, d = 0.2."""
    import json
    from pathlib import Path

    expected = json.loads((Path(__file__).parent / "fixtures" / "rrcor.json").read_text())
    i = np.arange(1, 401)
    z = ((i * 7) % 10 < 4).astype(float)
    y = (i % 13) + 4 * z + (i % 5) / 2
    w = (((i * 3) % 7 < 3) | ((z == 1) & (i % 4 == 0))).astype(float)
    cases = {
        "kuk_direct": correlation(z, y, x_scale=COIN, y_scale=DIRECT),
        "kuk_kuk": correlation(z, w, x_scale=COIN, y_scale=Scale(True, c=0.7, d=0.1)),
        "warner_direct": correlation(z, y, x_scale=Scale(True, c=0.6, d=0.2), y_scale=DIRECT),
    }
    for name, got in cases.items():
        assert got.estimate == pytest.approx(expected[name], rel=1e-9), name
