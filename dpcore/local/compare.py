"""Group comparisons of randomized-response estimates: differences from a reference group, Holm
adjustment, and the chi-square test of homogeneity of the reports.

Pure (stdlib only). Formulas and sources: docs/analysis.md#comparisons.

* Difference of group g from the reference r: ``π̂_g − π̂_r`` with the unbiased estimates
  ``π̂ = (λ̂ − d)/c``; the groups are independent samples, so
  ``SE = √(SE_g² + SE_r²)``, ``SE = √(λ̂(1 − λ̂)/n)/c``; Wald interval and two-sided
  ``p = erfc(|z|/√2)``.
* Holm (1979, Scand. J. Statist. 6:65): sort the m p-values, ``p̃_(i) = max_{j≤i} min(1,
  (m − j + 1)·p_(j))``.
* Equal prevalence across G groups ⇔ equal report rates (λ = cπ + d is one to one), so the
  overall test is Pearson's chi-square test of homogeneity of the reported counts,
  ``X² = Σ (O − E)²/E``, ``E = row total·column total/N``, df = (G − 1)(k − 1) over the groups
  and categories with respondents; for k-RR the same test on the option counts tests equal
  distributions (k-RR is an invertible linear map of the distribution).
* Parameters estimated by a moment estimator with an SE (cheating detection's π and γ per
  group): the Wald test of equality across G independent groups, ``W = Σ_g w_g·(θ̂_g − θ̄)²``,
  ``w_g = 1/SE_g²``, ``θ̄ = Σ w_g·θ̂_g/Σ w_g``, against χ²_{G−1} (the Wald statistic of the
  G − 1 contrasts θ_g − θ_1 = 0; e.g. Agresti 2013, *Categorical Data Analysis*, §1.3.3, §16.1);
  differences from the reference with ``SE = √(SE_g² + SE_r²)`` as above.
* ``P(χ²_df > x) = Q(df/2, x/2)``, the regularized upper incomplete gamma function, by its
  series or continued fraction (Press et al., *Numerical Recipes*, 3rd ed., §6.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dpcore.stats import z_value

__all__ = [
    "Difference",
    "Homogeneity",
    "chi2_sf",
    "differences",
    "estimate_differences",
    "holm",
    "homogeneity_test",
    "wald_equality",
]


def _lower_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    denom = a
    for _ in range(10_000):
        denom += 1.0
        term *= x / denom
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x ≥ a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(statistic: float, df: int) -> float:
    """``P(χ²_df > statistic)``."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if statistic <= 0.0:
        return 1.0
    a, x = df / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values (``None`` entries are skipped and stay ``None``)."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Difference:
    group: str
    difference: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_value_holm: float | None


def _estimate(count: float, n: float, c: float, d: float) -> tuple[float, float]:
    rate = count / n
    return (rate - d) / c, math.sqrt(rate * (1.0 - rate) / n) / c


def differences(
    groups: Sequence[tuple[str, float, float]],
    *,
    c: float,
    d: float,
    confidence: float,
) -> tuple[str | None, list[Difference]]:
    """Each group's difference from the reference — the first group with respondents.

    ``groups``: ``(name, count, n)`` with ``count`` the reports of the category ("yes", or one
    option). Returns ``(reference, differences)`` (the reference itself is not listed); groups
    without respondents get ``None`` fields; a zero SE (both report rates 0 or 1) gives no p.
    """
    z_crit = z_value(confidence)
    reference = next((g for g in groups if g[2] > 0), None)
    if reference is None:
        return None, []
    ref_est, ref_se = _estimate(reference[1], reference[2], c, d)
    rows: list[tuple[str, float | None, float | None, float | None]] = []
    for name, count, n in groups:
        if name == reference[0]:
            continue
        if n <= 0:
            rows.append((name, None, None, None))
            continue
        est, se = _estimate(count, n, c, d)
        diff, se_diff = est - ref_est, math.hypot(se, ref_se)
        p = math.erfc(abs(diff / se_diff) / math.sqrt(2.0)) if se_diff > 0.0 else None
        rows.append((name, diff, se_diff, p))
    adjusted = holm([row[3] for row in rows])
    out = [
        Difference(
            name,
            diff,
            se,
            None if diff is None or se is None else diff - z_crit * se,
            None if diff is None or se is None else diff + z_crit * se,
            p,
            p_holm,
        )
        for (name, diff, se, p), p_holm in zip(rows, adjusted, strict=True)
    ]
    return reference[0], out


@dataclass(frozen=True)
class Homogeneity:
    statistic: float | None
    df: int | None
    p_value: float | None


def homogeneity_test(table: Sequence[Sequence[float]]) -> Homogeneity:
    """Pearson's chi-square test of homogeneity of a groups × categories table of counts.

    Groups and categories with no counts are left out; fewer than two of either gives an
    all-``None`` result (nothing to test).
    """
    rows = [list(r) for r in table if sum(r) > 0]
    if len(rows) < 2:
        return Homogeneity(None, None, None)
    columns = [j for j in range(len(rows[0])) if sum(r[j] for r in rows) > 0]
    if len(columns) < 2:
        return Homogeneity(None, None, None)
    total = sum(sum(r) for r in rows)
    column_totals = {j: sum(r[j] for r in rows) for j in columns}
    statistic = 0.0
    for r in rows:
        row_total = sum(r)
        for j in columns:
            expected = row_total * column_totals[j] / total
            statistic += (r[j] - expected) ** 2 / expected
    df = (len(rows) - 1) * (len(columns) - 1)
    return Homogeneity(statistic, df, chi2_sf(statistic, df))


def _usable(value: float | None, se: float | None) -> tuple[float, float] | None:
    """``(value, se)`` when both are given and the SE is positive and finite, else None."""
    if value is None or se is None or not (se > 0.0 and math.isfinite(se)):
        return None
    return float(value), float(se)


def wald_equality(estimates: Sequence[tuple[float | None, float | None]]) -> Homogeneity:
    """The Wald test that G independent ``(estimate, SE)`` share one value: ``W = Σ w_g·(θ̂_g −
    θ̄)²`` with ``w_g = 1/SE_g²`` on G − 1 df. Groups without an estimate or with SE 0 are left
    out; fewer than two give an all-``None`` result."""
    usable = [u for u in (_usable(v, se) for v, se in estimates) if u is not None]
    if len(usable) < 2:
        return Homogeneity(None, None, None)
    weights = [1.0 / (se * se) for _, se in usable]
    mean = sum(w * v for w, (v, _) in zip(weights, usable, strict=True)) / sum(weights)
    statistic = sum(w * (v - mean) ** 2 for w, (v, _) in zip(weights, usable, strict=True))
    df = len(usable) - 1
    return Homogeneity(statistic, df, chi2_sf(statistic, df))


def estimate_differences(
    groups: Sequence[tuple[str, float | None, float | None]], *, confidence: float
) -> tuple[str | None, list[Difference]]:
    """:func:`differences` for estimates given with their SEs: ``(name, estimate, SE)``; the
    reference is the first group with a usable estimate."""
    z_crit = z_value(confidence)
    usable = [(name, _usable(value, se)) for name, value, se in groups]
    reference = next(((name, u) for name, u in usable if u is not None), None)
    if reference is None:
        return None, []
    ref_name, (ref_value, ref_se) = reference
    rows: list[tuple[str, float | None, float | None, float | None]] = []
    for name, u in usable:
        if name == ref_name:
            continue
        if u is None:
            rows.append((name, None, None, None))
            continue
        diff, se_diff = u[0] - ref_value, math.hypot(u[1], ref_se)
        rows.append((name, diff, se_diff, math.erfc(abs(diff / se_diff) / math.sqrt(2.0))))
    adjusted = holm([row[3] for row in rows])
    out = [
        Difference(
            name,
            diff,
            se,
            None if diff is None or se is None else diff - z_crit * se,
            None if diff is None or se is None else diff + z_crit * se,
            p,
            p_holm,
        )
        for (name, diff, se, p), p_holm in zip(rows, adjusted, strict=True)
    ]
    return ref_name, out
