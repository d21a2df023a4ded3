"""Is a release worth making? Expected errors, a "useful" target, and a default parameter.

The release panel previews every request (:func:`privacy.services.preview.release_preview`).
This module adds the judgement the panel shows next to the numbers, computed here so that the
browser holds no copy of the formulas:

* **Target accuracy.** A proportion whose expected 95 % half-width exceeds ±10 percentage points
  (:data:`USEFUL_HALF_WIDTH`) is flagged as not useful: the interval of a typical estimate then
  spans more than 20 points — wider than most differences a survey sets out to measure (e.g.
  30 % vs 45 %), and for rare traits it straddles 0 %. A number question's mean is held to the same
  standard relative to its declared range (±10 % of max − min).
* **Negative counts.** A noisy count is the true count plus integer noise; when the noise SD is
  comparable to a typical cell (n per group / number of cells), many published counts are
  negative. :func:`negative_count_chance` is P(noisy < 0) at an average-sized cell (normal
  approximation); the panel warns from 5 %.
* **Default parameter.** :func:`suggested_value` is the smallest ε (or ρ) at which every released
  estimate meets its target (or, when sampling alone already misses it, gets within √2 of its
  noise-free accuracy) — spending more buys little, spending less makes the release useless.
  :func:`default_epsilon` proposes it when it fits in the remaining budget, else half of the
  remaining ε, which keeps room for a second, narrower release (fewer questions, no group-by)
  rather than spending everything on a result that will not meet the target anyway.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from dpcore.central import accounting
from dpcore.central.mechanisms import Mechanism
from dpcore.central.release_noise import Noiser
from privacy.services.plan import PARAMETER_RANGES
from privacy.services.sensitivity import release_part
from surveys.models import Question

USEFUL_HALF_WIDTH = 0.10  # ±10 percentage points on a proportion (see the module docstring)
USEFUL_NUMBER_FRACTION = 0.10  # ±10 % of a number question's declared range
NEGATIVE_COUNT_WARNING = 0.05  # warn when ≥ 5 % of average-sized noisy counts fall below 0
# A question that cannot reach its target even without central noise (too few respondents per
# group, or a very private local design) is instead held to √2 × its noise-free half-width: the
# central noise then adds at most as much variance as sampling and local randomization already
# have, and spending more budget would shrink its interval by less than 30 %.
SAMPLING_FACTOR = math.sqrt(2.0)
_BISECTION_STEPS = 48  # on log(parameter): ranges of 1e-6…1e6 to better than 0.1 %


def question_errors(
    *,
    questions: Sequence[Question],
    noiser: Noiser,
    n_group: float,
    z: float,
    answered: Mapping[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Expected SE and half-width per question (the formulas: each kind's release part's
    ``expected``, :mod:`dpcore.central.release_parts`).

    ``answered[key]``: the respondents per group who answered that question, where fewer than
    ``n_group`` did (an optional or skip-logic question, docs/analysis.md#missing-answers)."""
    out = []
    overall = n_group
    for q in questions:
        n_group = max(1.0, min(overall, (answered or {}).get(q.key, overall)))
        entry: dict[str, Any] = {"key": q.key, "kind": q.kind, "respondents_assumed": n_group}
        expected = release_part(q).expected(noiser, n_group)
        if expected.value_range is None:
            target = USEFUL_HALF_WIDTH
        else:
            target = USEFUL_NUMBER_FRACTION * expected.value_range
        if expected.grid is not None:
            entry.update(
                grid_step=float(expected.grid.step),
                sum_sensitivity=expected.grid.sensitivity,
                expected_sum_std_error=expected.sum_std_error,
            )
        se = expected.std_error
        entry.update(
            expected_std_error=se,
            expected_half_width=z * se,
            # Without any central noise: what the respondents' own randomization and the
            # sample size allow, however much budget is spent.
            sampling_half_width=z * expected.sampling_std_error,
            target_half_width=target,
            useful=z * se <= target,
        )
        out.append(entry)
    return out


def negative_count_chance(
    *, questions: Sequence[Question], unit_variance: float, n_group: float
) -> float:
    """P(a noisy count < 0) at an average-sized cell of the question with the most cells.

    Normal approximation: the cell holds about n/k reports and gets noise of SD √V, so
    P ≈ Φ(−(n/k)/√V). 0 when nothing is counted or there is no noise. (A multi question's
    released histograms have two cells per option, YES and NO; a number's sum is no histogram.)
    """
    parts = (release_part(q).released_cells for q in questions)
    cells = [k for k in parts if k is not None]
    if not cells or unit_variance <= 0:
        return 0.0
    mean_cell = n_group / max(cells)
    return 0.5 * math.erfc(mean_cell / math.sqrt(unit_variance) / math.sqrt(2.0))


def unit_noise(*, mechanism: Mechanism, parameter: float, contributions: int) -> Noiser:
    """The mechanism at ε (laplace; gaussian with δ) or ρ (gaussian without δ) = ``parameter``,
    and its unit noise: the plan's own derivation (:mod:`dpcore.central.mechanisms`)."""
    chosen = mechanism.with_parameter(parameter)
    return Noiser(chosen, chosen.unit_noise(contributions))


def _round_up(x: float) -> float:
    """Up to two significant digits (0.01234 → 0.013): a value a person can type and read."""
    if x <= 0:
        return x
    scale = 10 ** (math.floor(math.log10(x)) - 1)
    # Through "%.2g" so that 0.0075 prints as 0.0075, not 0.007500000000000001.
    return float(f"{math.ceil(x / scale - 1e-9) * scale:.2g}")


def suggested_value(
    *,
    questions: Sequence[Question],
    mechanism: Mechanism,
    contributions: int,
    n_group: float,
    z: float,
) -> float | None:
    """The smallest value of the mechanism's parameter (ε, or ρ for gaussian without δ) at which
    every estimate meets its target — or, for a question whose sampling error alone exceeds the
    target, comes within :data:`SAMPLING_FACTOR` of that sampling error. None if nothing is
    released.
    """
    low, high = PARAMETER_RANGES[mechanism.parameter_name]
    low, high = max(low, 1e-6), min(high, 1e6)

    def meets(value: float) -> bool:
        noiser = unit_noise(mechanism=mechanism, parameter=value, contributions=contributions)
        errors = question_errors(questions=questions, noiser=noiser, n_group=n_group, z=z)
        return all(
            e["expected_half_width"]
            <= max(e["target_half_width"], SAMPLING_FACTOR * e["sampling_half_width"])
            for e in errors
        )

    if not questions or not meets(high):
        return None
    if meets(low):
        return low
    lo, hi = math.log(low), math.log(high)
    for _ in range(_BISECTION_STEPS):
        mid = (lo + hi) / 2
        if meets(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return _round_up(math.exp(hi))


def default_epsilon(
    *,
    suggested: float | None,
    contributions: int,
    mechanism: Mechanism,
    before: Sequence[accounting.Event],
    budget_delta: float,
    budget_epsilon: float,
    spent: float,
) -> tuple[float | None, str]:
    """(ε to propose, why): ``"target"`` — the suggested ε fits the remaining budget;
    ``"half_remaining"`` — it does not (or no ε meets the target), so half of what is left;
    ``"exhausted"`` — nothing is left (None)."""
    remaining = budget_epsilon - spent
    if remaining <= budget_epsilon * accounting.BUDGET_RELATIVE_SLACK:
        return None, "exhausted"
    if suggested is not None:
        # Charged as m unit contributions (no per-part events: a proposal, not a charge).
        noiser = unit_noise(mechanism=mechanism, parameter=suggested, contributions=contributions)
        events = noiser.mechanism.events(contributions, noiser.unit)
        after = accounting.epsilon_spent([*before, *events], budget_delta)
        if after.epsilon <= budget_epsilon * (1 + accounting.BUDGET_RELATIVE_SLACK):
            return suggested, "target"
    half = remaining / 2
    # Two significant digits, rounded *down* so that the proposal never exceeds the half.
    scale = 10 ** (math.floor(math.log10(half)) - 1)
    proposal = float(f"{math.floor(half / scale + 1e-9) * scale:.2g}")
    return max(proposal, PARAMETER_RANGES["epsilon"][0]), "half_remaining"
