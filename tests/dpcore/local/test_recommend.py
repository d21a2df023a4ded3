"""dpcore.local.recommend: every ε-only design of a k-option question compared on one option's
variance (Wang et al. 2017), against the closed forms at f → 0."""

from __future__ import annotations

import math

import pytest

from dpcore.errors import ArgumentError, DesignError
from dpcore.local.recommend import option_variance, recommend_options_design


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("k", [2, 5, 20, 100])
def test_rare_option_variances_are_the_closed_forms(k, eps):
    found = recommend_options_design(k=k, epsilon=eps, n=1)
    rare = {c.design["name"]: c.variance_rare for c in found.candidates}
    e = math.exp(eps)
    assert rare["k_rr"] == pytest.approx((e + k - 2) / (e - 1) ** 2, rel=1e-9)
    assert rare["oue"] == pytest.approx(4 * e / (e - 1) ** 2, rel=1e-9)
    best = min(found.candidates, key=lambda c: c.variance)
    assert found.recommended == best.design


def test_bad_arguments_name_the_field():
    with pytest.raises(ArgumentError):
        option_variance(0.25, 0.25, 0, 0.1)
    with pytest.raises(DesignError) as exc:
        recommend_options_design(k=1, epsilon=1.0, n=10)
    assert exc.value.field == "k"
