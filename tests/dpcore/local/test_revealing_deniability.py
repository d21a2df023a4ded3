"""``revealing_deniability`` (issue 22.9): the report that raises the posterior most, by Bayes from
P(yes | trait) = c + d and P(yes | no trait) = d, checked against the two posteriors directly."""

from __future__ import annotations

import pytest

from dpcore.local import crosswise, deniability, forced_response, revealing_deniability, warner


def _posteriors(design, prior):
    """(P(trait | yes), P(trait | no)) written out from the two report probabilities."""
    yes_t, yes_n = design.c + design.d, design.d
    on_yes = prior * yes_t / (prior * yes_t + (1 - prior) * yes_n)
    on_no = prior * (1 - yes_t) / (prior * (1 - yes_t) + (1 - prior) * (1 - yes_n))
    return on_yes, on_no


@pytest.mark.parametrize(
    "design",
    [
        crosswise(0.25),
        crosswise(0.3),
        crosswise(0.75),
        forced_response(0.5, 0.25, 0.25),
        warner(0.75),
    ],
)
@pytest.mark.parametrize("prior", [0.01, 0.1, 0.5, 0.9])
def test_the_revealing_report_has_the_larger_posterior(design, prior):
    report, posterior = revealing_deniability(design, prior)
    on_yes, on_no = _posteriors(design, prior)
    assert posterior == pytest.approx(max(on_yes, on_no))
    assert report == (on_yes >= on_no)
    if report:
        assert posterior == pytest.approx(deniability(design, prior))


def test_crosswise_quarter_different_reveals_25_percent():
    # p = ¼, π = 0.1: P(trait | DIFFERENT) = 0.1·¾ / (0.1·¾ + 0.9·¼) = 0.075 / 0.3 = 0.25.
    assert revealing_deniability(crosswise(0.25), 0.1) == (False, pytest.approx(0.25))
    assert revealing_deniability(crosswise(0.25), 0.0) == (False, 0.0)
