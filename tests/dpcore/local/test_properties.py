"""Hypothesis properties of the estimators, intervals, ε, the bound and the simplex projection."""

from __future__ import annotations

import itertools
import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpcore.local import (
    BinaryDesign,
    deniability,
    efficiency,
    estimate_binary,
    estimate_krr,
    forced_response,
    k_rr,
    optimal_forced_response,
    planned_half_width,
    project_to_simplex,
    sample_size,
    unrelated_question,
    warner,
)

probability = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
confidence = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
interval_kind = st.sampled_from(["wilson", "wald"])


@st.composite
def forced_response_designs(draw: st.DrawFn, private: bool = False) -> BinaryDesign:
    low = 1e-6 if private else 0.0
    q = draw(st.floats(min_value=0.01, max_value=1.0 - 2 * low))
    share = draw(st.floats(min_value=0.0, max_value=1.0))
    rest = 1.0 - q
    f1 = min(max(rest * share, low), rest - low)
    return forced_response(q, f1, rest - f1)


binary_designs = st.one_of(
    forced_response_designs(),
    st.floats(min_value=0.51, max_value=1.0).map(warner),
    st.builds(unrelated_question, st.floats(min_value=0.01, max_value=1.0), probability),
)


def binomial_expectation(n: int, lam: float, value) -> float:
    """Σ_y C(n, y) λ^y (1 − λ)^(n − y) · value(y), exactly over the support (no simulation)."""
    return math.fsum(
        math.comb(n, y) * lam**y * (1 - lam) ** (n - y) * value(y) for y in range(n + 1)
    )


@given(design=binary_designs, n=st.integers(1, 40), pi=probability)
def test_estimator_is_unbiased_exactly_over_the_binomial(design: BinaryDesign, n: int, pi: float):
    lam = design.c * pi + design.d

    def unclipped(y: int) -> float:
        return estimate_binary(design, n=n, reported_yes=y).estimate_unclipped

    assert math.isclose(binomial_expectation(n, lam, unclipped), pi, abs_tol=1e-9)


@given(
    design=binary_designs,
    n=st.integers(1, 5000),
    data=st.data(),
    confidence=confidence,
    interval=interval_kind,
)
def test_interval_contains_the_clipped_estimate(
    design: BinaryDesign, n: int, data: st.DataObject, confidence: float, interval: str
) -> None:
    y = data.draw(st.integers(0, n))
    result = estimate_binary(design, n=n, reported_yes=y, confidence=confidence, interval=interval)
    assert 0.0 <= result.ci_low <= result.estimate <= result.ci_high <= 1.0
    assert result.estimate == min(max(result.estimate_unclipped, 0.0), 1.0)
    assert result.std_error >= 0.0


@given(design=binary_designs, n=st.integers(1, 400), confidence=confidence)
@settings(max_examples=50)
def test_estimate_and_wilson_bounds_are_monotone_in_the_report_rate(
    design: BinaryDesign, n: int, confidence: float
) -> None:
    results = [
        estimate_binary(design, n=n, reported_yes=y, confidence=confidence) for y in range(n + 1)
    ]
    for before, after in itertools.pairwise(results):
        assert before.estimate_unclipped < after.estimate_unclipped
        assert before.estimate <= after.estimate
        assert before.ci_low <= after.ci_low
        assert before.ci_high <= after.ci_high


@given(c=st.floats(min_value=0.01, max_value=1.0), share=st.floats(0.0, 1.0))
def test_epsilon_is_symmetric_under_yes_no_relabelling(c: float, share: float) -> None:
    # Relabelling yes <-> no (and trait <-> no trait) maps (c, d) to (c, 1 − c − d).
    d = (1.0 - c) * share
    original = BinaryDesign("forced_response", c, d)
    relabelled = BinaryDesign("forced_response", c, 1.0 - c - d)
    if d == 0.0 or c + d == 1.0:
        assert math.isinf(original.epsilon)
        assert math.isinf(relabelled.epsilon)
        return
    # 1 − c − d is computed with cancellation: compare where it keeps 1e-10 relative precision.
    assume(min(d, 1.0 - c - d) > 1e-6)
    assert math.isclose(original.epsilon, relabelled.epsilon, rel_tol=1e-9)


@given(design=forced_response_designs())
def test_swapping_p_yes_and_p_no_keeps_epsilon(design: BinaryDesign) -> None:
    swapped = forced_response(
        design.params["p_truth"], design.params["p_no"], design.params["p_yes"]
    )
    if math.isinf(design.epsilon):
        assert math.isinf(swapped.epsilon)
    else:
        assert math.isclose(design.epsilon, swapped.epsilon, rel_tol=1e-9)


@given(design=forced_response_designs(private=True), pi=probability)
def test_no_design_beats_the_bound(design: BinaryDesign, pi: float) -> None:
    assume(design.is_private)
    assert efficiency(design, pi) <= 1.0 + 1e-9


@given(epsilon=st.floats(min_value=0.01, max_value=20.0), pi=probability)
def test_the_optimal_designs_attain_the_bound(epsilon: float, pi: float) -> None:
    assert math.isclose(efficiency(optimal_forced_response(epsilon), pi), 1.0, rel_tol=1e-9)
    keep = 1.0 / (1.0 + math.exp(-epsilon))
    assume(keep < 1.0)
    assert math.isclose(efficiency(warner(keep), pi), 1.0, rel_tol=1e-6)


@given(design=binary_designs, prior=st.floats(min_value=0.001, max_value=0.999))
def test_deniability_respects_epsilon(design: BinaryDesign, prior: float) -> None:
    # ε-LDP: posterior odds of the trait after a "yes" are at most e^ε times the prior odds.
    assume(design.is_private)
    posterior = deniability(design, prior)
    assert prior <= posterior * (1 + 1e-12)  # a "yes" never lowers P(trait) since c > 0
    # odds(posterior) ≤ e^ε·odds(prior), written without the cancellation in 1 − posterior:
    boosted = math.exp(design.epsilon) * prior
    assert posterior <= boosted / (boosted + (1 - prior)) * (1 + 1e-12)


@given(
    design=binary_designs,
    half_width=st.floats(min_value=0.005, max_value=0.5),
    prior=st.none() | probability,
)
def test_sample_size_and_planned_half_width_are_inverse(
    design: BinaryDesign, half_width: float, prior: float | None
) -> None:
    n = sample_size(design, half_width=half_width, prior=prior)
    assert planned_half_width(design, n=n, prior=prior) <= half_width * (1 + 1e-9)
    if n > 1:
        assert planned_half_width(design, n=n - 1, prior=prior) > half_width * (1 - 1e-9)


finite_values = st.lists(
    st.floats(min_value=-10.0, max_value=10.0, allow_nan=False), min_size=1, max_size=12
)


@given(values=finite_values, other=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_simplex_projection_is_the_nearest_simplex_point(
    values: list[float], other: list[float]
) -> None:
    projected = project_to_simplex(values)
    assert len(projected) == len(values)
    assert all(x >= 0.0 for x in projected)
    assert math.isclose(math.fsum(projected), 1.0, abs_tol=1e-9)
    assert all(
        math.isclose(a, b, abs_tol=1e-9) for a, b in zip(project_to_simplex(projected), projected)
    )
    # Any other simplex point is at least as far away.
    weights = (other * len(values))[: len(values)]
    total = math.fsum(weights)
    assume(total > 0)
    point = [w / total for w in weights]

    def distance(x: tuple[float, ...] | list[float]) -> float:
        return math.fsum((a - b) ** 2 for a, b in zip(values, x))

    assert distance(projected) <= distance(point) + 1e-9


def compositions(n: int, k: int):
    """Every (C_1, …, C_k) with C_v ≥ 0 and Σ C_v = n."""
    for cuts in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *cuts, n + k - 1)
        yield tuple(b - a - 1 for a, b in itertools.pairwise(edges))


def multinomial_pmf(counts: tuple[int, ...], probabilities: list[float]) -> float:
    coefficient = math.factorial(sum(counts))
    for count in counts:
        coefficient //= math.factorial(count)
    return coefficient * math.prod(p**c for p, c in zip(probabilities, counts))


@given(
    k=st.integers(2, 4),
    n=st.integers(1, 6),
    epsilon=st.floats(min_value=0.1, max_value=5.0),
    raw=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
)
@settings(max_examples=60)
def test_krr_is_unbiased_exactly_over_the_multinomial(
    k: int, n: int, epsilon: float, raw: list[float]
) -> None:
    total = math.fsum(raw[:k])
    assume(total > 0)
    frequencies = [w / total for w in raw[:k]]
    design = k_rr(k, epsilon)
    p, q = design.keep_probability, design.other_probability
    report = [q + (p - q) * f for f in frequencies]  # P(report v)
    expectation = [0.0] * k
    for counts in compositions(n, k):
        weight = multinomial_pmf(counts, report)
        result = estimate_krr(design, counts=counts)
        for v, option in enumerate(result.options):
            expectation[v] += weight * option.estimate_unclipped
    assert all(math.isclose(e, f, abs_tol=1e-9) for e, f in zip(expectation, frequencies))


@given(
    k=st.integers(2, 8),
    epsilon=st.floats(min_value=0.05, max_value=8.0),
    counts=st.lists(st.integers(0, 500), min_size=8, max_size=8),
)
def test_krr_estimates_are_consistent(k: int, epsilon: float, counts: list[int]) -> None:
    design = k_rr(k, epsilon)
    assert math.isclose(design.keep_probability / design.other_probability, math.exp(epsilon))
    assume(sum(counts[:k]) > 0)
    result = estimate_krr(design, counts=counts[:k])
    unbiased = [o.estimate_unclipped for o in result.options]
    shown = [o.estimate for o in result.options]
    assert math.isclose(math.fsum(unbiased), 1.0, abs_tol=1e-9)  # Σ ĉ_v = n exactly
    assert math.isclose(math.fsum(shown), 1.0, abs_tol=1e-9)
    assert all(x >= 0.0 for x in shown)
    for option in result.options:
        clipped = min(max(option.estimate_unclipped, 0.0), 1.0)
        assert option.ci_low <= clipped <= option.ci_high
