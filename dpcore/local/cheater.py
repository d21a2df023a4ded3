"""The symmetric cheating-detection model (CDMsym): honest prevalence, cheaters and their SEs.

Clark, S. J. & Desharnais, R. A. (1998) "Honest answers to embarrassing questions: detecting
cheating in the randomized response model", Psychological Methods 3(2):160–168; the symmetric
variant with forced answers both ways is ``RRreg``'s "CDMsym" (Ostapczuk, Moshagen, Zhao & Musch
2009, European Journal of Social Psychology 39:1024–1037). Pure: numpy and the standard library.

**Model.** Each respondent is assigned at random (probability ½ each, on the device) to group
i ∈ {1, 2}, whose forced-response device says "answer truthfully" with ``1 − y_i − z_i``, "say
yes" with ``y_i`` (``p_yes``) and "say no" with ``z_i`` (``p_no``). The population is split into
honest respondents with the trait (share π), honest respondents without it (β) and *cheaters*
(γ = 1 − π − β), who answer "no" whatever the device says. So in group i

    λ_i = P(yes | group i) = π·(1 − z_i) + β·y_i,

two linear equations ``A·(π, β)ᵀ = (λ₁, λ₂)ᵀ`` with ``A = [[1 − z₁, y₁], [1 − z₂, y₂]]``,
identified when ``det A = (1 − z₁)·y₂ − (1 − z₂)·y₁ ≠ 0`` (the groups must differ).

**Estimates.** With ``λ̂_i = (yes in group i)/n_i``: ``(π̂, β̂) = A⁻¹·λ̂`` (moment estimator,
unbiased), ``γ̂ = 1 − π̂ − β̂``, covariance ``A⁻¹·diag(λ̂_i(1 − λ̂_i)/n_i)·A⁻ᵀ`` (exact for the
linear estimator given the λ̂ variances; :mod:`dpcore.local.grouped`). When (π̂, β̂, γ̂) lies in
the simplex it *is* the maximum-likelihood estimate; when it does not, the ML estimate lies on
the simplex's boundary and ``at_boundary`` is set — the SEs are then
those of the moment estimator. Intervals: :mod:`dpcore.local.bounded_interval` on [0, 1] around
the moment estimate (never of zero width), widened to contain the reported estimate.

**Local ε.** Honest respondents of group i run forced response, ε_i =
``max{|ln((1 − z_i)/y_i)|, |ln((1 − y_i)/z_i)|}``; the group is drawn independently of the true
answer, so storing it with the report costs nothing and a respondent's ε is ``max(ε₁, ε₂)``.
A forced answer of 0 (CDM, one-sided) gives ε = ∞ and is refused.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from dpcore.errors import ArgumentError, DesignError
from dpcore.local import grouped
from dpcore.local.bounded_interval import adjusted_proportions
from dpcore.local.browser import browser_plan
from dpcore.local.designs._binary import BinaryDesign
from dpcore.local.designs.forced_response import forced_response
from dpcore.local.fit import ACTIVE_TOLERANCE, BoundaryFit, two_group_fit
from dpcore.local.grouped import ParameterEstimate
from dpcore.stats import clip01, z_value
from dpcore.validation import check_half_width, check_n
from dpcore.validation import count as _count
from dpcore.validation import design_probability as _probability

__all__ = [
    "CheaterDetectionDesign",
    "CheaterEstimate",
    "CheaterGroup",
    "ParameterEstimate",
    "browser_thresholds",
    "cheater_detection",
    "estimate_cheater_detection",
    "fit_cheater_detection",
    "group_designs",
    "planned_half_width_per_group",
    "sample_size_per_group",
]

#: |det A| below this: the two groups are (numerically) the same device and π, β not identified.
_MIN_DETERMINANT: Final = 1e-6
#: The design's spec name (registered by :mod:`dpcore.local.designs.cheater_detection`).
NAME: Final = "cheater_detection"


@dataclasses.dataclass(frozen=True)
class CheaterGroup:
    """One group's forced-response device: forced "yes" with ``p_yes``, forced "no" with
    ``p_no``, the true answer otherwise."""

    p_yes: float
    p_no: float

    @property
    def p_truth(self) -> float:
        return 1.0 - self.p_yes - self.p_no

    @property
    def epsilon(self) -> float:
        """``max{|ln((1 − p_no)/p_yes)|, |ln((1 − p_yes)/p_no)|}`` (forced response's ε)."""
        return max(
            abs(math.log((1.0 - self.p_no) / self.p_yes)),
            abs(math.log((1.0 - self.p_yes) / self.p_no)),
        )


@dataclasses.dataclass(frozen=True)
class CheaterDetectionDesign:
    """Two groups (assigned with probability ½ each) with different forced-answer devices."""

    groups: tuple[CheaterGroup, CheaterGroup]
    name: str = NAME

    @property
    def matrix(self) -> np.ndarray:
        """``A`` with ``(λ₁, λ₂)ᵀ = A·(π, β)ᵀ``: rows ``(1 − p_no_i, p_yes_i)``."""
        return np.array([[1.0 - g.p_no, g.p_yes] for g in self.groups], dtype=np.float64)

    @property
    def determinant(self) -> float:
        (a, b), (c, d) = ((1.0 - g.p_no, g.p_yes) for g in self.groups)
        return a * d - b * c

    @property
    def group_epsilons(self) -> tuple[float, float]:
        return (self.groups[0].epsilon, self.groups[1].epsilon)

    @property
    def epsilon(self) -> float:
        """A respondent's local ε: the larger group ε (the group is independent of the answer)."""
        return max(self.group_epsilons)

    @property
    def is_private(self) -> bool:
        return math.isfinite(self.epsilon)

    def report_probabilities(self, honest_yes: float, cheaters: float) -> tuple[float, float]:
        """``(λ₁, λ₂)`` at honest prevalence π and cheater share γ (β = 1 − π − γ)."""
        beta = 1.0 - honest_yes - cheaters
        return tuple(  # type: ignore[return-value]
            honest_yes * (1.0 - g.p_no) + beta * g.p_yes for g in self.groups
        )

    def to_spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "groups": [{"p_yes": g.p_yes, "p_no": g.p_no} for g in self.groups],
        }


def _group(index: int, raw: Any) -> CheaterGroup:
    prefix = f"groups[{index}]"
    if not isinstance(raw, Mapping):
        raise DesignError(prefix, "must be an object with p_yes and p_no")
    unexpected = sorted(str(k) for k in raw if k not in ("p_yes", "p_no"))
    if unexpected:
        raise DesignError(f"{prefix}.{unexpected[0]}", "unexpected parameter")
    for key in ("p_yes", "p_no"):
        if key not in raw:
            raise DesignError(f"{prefix}.{key}", "missing")
    p_yes = _probability(f"{prefix}.p_yes", raw["p_yes"])
    p_no = _probability(f"{prefix}.p_no", raw["p_no"])
    if p_yes <= 0.0 or p_no <= 0.0:
        field = f"{prefix}.p_yes" if p_yes <= 0.0 else f"{prefix}.p_no"
        raise DesignError(
            field,
            "must be > 0: forced answers must go both ways, else one answer proves the "
            "respondent's status (ε = ∞; the one-sided CDM stays refused)",
        )
    if p_yes + p_no >= 1.0:
        raise DesignError(f"{prefix}.p_no", "p_yes + p_no must be below 1 (some truthful answers)")
    return CheaterGroup(p_yes, p_no)


def cheater_detection(groups: Sequence[Any]) -> CheaterDetectionDesign:
    """Build a CDMsym design from ``[{"p_yes", "p_no"}, {"p_yes", "p_no"}]``; raises
    :class:`DesignError` naming the field (``groups[1].p_no``…)."""
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence) or len(groups) != 2:
        raise DesignError("groups", "give exactly two groups, each {p_yes, p_no}")
    design = CheaterDetectionDesign((_group(0, groups[0]), _group(1, groups[1])))
    if abs(design.determinant) < _MIN_DETERMINANT:
        raise DesignError(
            "groups",
            "the two groups must differ: with these probabilities the honest prevalence and the "
            "share of cheaters cannot be told apart (det A = (1 − p_no₁)·p_yes₂ − "
            "(1 − p_no₂)·p_yes₁ ≈ 0)",
        )
    return design


def design_from_spec(spec: Mapping[str, Any]) -> CheaterDetectionDesign:
    """``{"name": "cheater_detection", "groups": [...]}`` → the design.

    Formulas: docs/formulas.md#cheater-detection.
    """
    if not isinstance(spec, Mapping) or spec.get("name") != NAME:
        raise DesignError("name", f"expected {NAME!r}")
    unexpected = sorted(str(k) for k in spec if k not in ("name", "groups"))
    if unexpected:
        raise DesignError(unexpected[0], f"unexpected parameter for design {NAME!r}")
    if "groups" not in spec:
        raise DesignError("groups", "missing (two groups, each {p_yes, p_no})")
    return cheater_detection(spec["groups"])


# --- estimates -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CheaterEstimate:
    """``honest_yes`` (π), ``cheaters`` (γ) and ``honest_no`` (β), per-group counts, and
    ``at_boundary`` when the ML estimate lies on the edge of the simplex."""

    n: tuple[int, int]
    reported_yes: tuple[int, int]
    honest_yes: ParameterEstimate
    cheaters: ParameterEstimate
    honest_no: ParameterEstimate
    at_boundary: bool
    confidence: float


#: The simplex π, β, γ ≥ 0: its edges in (π, β), between the vertices (0,0), (1,0), (0,1).
_SIMPLEX_EDGES: Final = (
    ((0.0, 0.0), (1.0, 0.0)),
    ((0.0, 0.0), (0.0, 1.0)),
    ((1.0, 0.0), (0.0, 1.0)),
)


def _variances(inverse: np.ndarray, rates: np.ndarray, sizes: np.ndarray) -> tuple[float, ...]:
    """Var π̂, Var β̂, Var γ̂ of the linear estimator at group ``rates`` and ``sizes``."""
    cov = grouped.covariance(inverse, rates, sizes)
    var_pi, var_beta, cov_pb = float(cov[0, 0]), float(cov[1, 1]), float(cov[0, 1])
    return var_pi, var_beta, var_pi + var_beta + 2.0 * cov_pb


_EMPTY = grouped.EMPTY


def estimate_cheater_detection(
    design: CheaterDetectionDesign,
    *,
    n: Sequence[int],
    reported_yes: Sequence[int],
    confidence: float = 0.95,
) -> CheaterEstimate:
    """π (``honest_yes``), γ (``cheaters``) and β (``honest_no``) from per-group counts.

    ``n[i]`` reports in group i + 1, ``reported_yes[i]`` of them "yes". A group without reports
    leaves every estimate None (two groups are needed to separate honest "no" from cheating).
    """
    if len(n) != 2 or len(reported_yes) != 2:
        raise ArgumentError("n", "give the counts of both groups")
    sizes = tuple(_count(f"n[{i}]", v) for i, v in enumerate(n))
    yes = tuple(_count(f"reported_yes[{i}]", v) for i, v in enumerate(reported_yes))
    for i in range(2):
        if yes[i] > sizes[i]:
            raise ArgumentError(f"reported_yes[{i}]", f"exceeds n[{i}] = {sizes[i]}")
    z = z_value(confidence)
    if min(sizes) == 0:
        return CheaterEstimate(sizes, yes, _EMPTY, _EMPTY, _EMPTY, False, confidence)  # type: ignore[arg-type]
    lam = np.array([yes[0] / sizes[0], yes[1] / sizes[1]])
    inverse = np.linalg.inv(design.matrix)
    pi_u, beta_u = (float(x) for x in inverse @ lam)
    gamma_u = 1.0 - pi_u - beta_u
    var_pi, var_beta, var_gamma = _variances(inverse, lam, np.array(sizes, dtype=np.float64))
    adjusted = [adjusted_proportions([yes[i], sizes[i] - yes[i]], z) for i in range(2)]
    ivar_pi, ivar_beta, ivar_gamma = _variances(
        inverse, np.array([a[0][0] for a in adjusted]), np.array([a[1] for a in adjusted])
    )
    inside = min(pi_u, beta_u, gamma_u) >= 0.0
    pi, beta = (
        (pi_u, beta_u) if inside else grouped.boundary_ml(design.matrix, yes, sizes, _SIMPLEX_EDGES)
    )
    pi, beta = clip01(pi), clip01(beta)
    gamma = clip01(1.0 - pi - beta)
    return CheaterEstimate(
        n=sizes,  # type: ignore[arg-type]
        reported_yes=yes,  # type: ignore[arg-type]
        honest_yes=grouped.parameter_estimate(pi, pi_u, var_pi, ivar_pi, confidence),
        cheaters=grouped.parameter_estimate(gamma, gamma_u, var_gamma, ivar_gamma, confidence),
        honest_no=grouped.parameter_estimate(beta, beta_u, var_beta, ivar_beta, confidence),
        at_boundary=not inside,
        confidence=confidence,
    )


def fit_cheater_detection(
    design: CheaterDetectionDesign, *, n: Sequence[int], reported_yes: Sequence[int]
) -> BoundaryFit | None:
    """G² of the constrained (π, β, γ ≥ 0) against the unconstrained fit (:mod:`dpcore.local.fit`,
    docs/formulas.md#goodness-of-fit). At a vertex of the simplex its faces run to the other two
    vertices; None when a group has no reports."""
    sizes = [_count(f"n[{i}]", v) for i, v in enumerate(n)]
    yes = [_count(f"reported_yes[{i}]", v) for i, v in enumerate(reported_yes)]
    if len(sizes) != 2 or len(yes) != 2 or min(sizes) == 0:
        return None
    lam = np.array([yes[0] / sizes[0], yes[1] / sizes[1]])
    pi_u, beta_u = (float(x) for x in np.linalg.inv(design.matrix) @ lam)
    inside = min(pi_u, beta_u, 1.0 - pi_u - beta_u) >= 0.0
    theta = (pi_u, beta_u)
    if not inside:
        theta = grouped.boundary_ml(design.matrix, yes, sizes, _SIMPLEX_EDGES)
    vertices = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
    near = [v for v in vertices if math.dist(v, theta) <= ACTIVE_TOLERANCE**0.5]
    edges = None
    if near:
        v = near[0]
        edges = [(u[0] - v[0], u[1] - v[1]) for u in vertices if u != v]
    return two_group_fit(
        matrix=design.matrix, yes=yes, n=sizes, theta=theta, vertex_edges=edges, inside=inside
    )


# --- what the browser runs ------------------------------------------------------------------------


def group_designs(design: CheaterDetectionDesign) -> tuple[BinaryDesign, BinaryDesign]:
    """Each group's device as a forced-response design (for its thresholds, ε and dice)."""
    return tuple(  # type: ignore[return-value]
        forced_response(g.p_truth, g.p_yes, g.p_no) for g in design.groups
    )


def browser_thresholds(design: CheaterDetectionDesign) -> tuple[dict[str, int], float]:
    """The page's integers and the ε they realise (rounded up; the larger group's).

    The page draws the group with ``randomBelow(2)`` (exactly ½ each, Web Crypto), then runs the
    group's forced-response thresholds: ``group_<i>_truth`` and ``group_<i>_yes`` as
    ``dpcore.local.browser.browser_plan`` computes them for that group.
    """
    thresholds: dict[str, int] = {}
    epsilon = 0.0
    for i, group in enumerate(group_designs(design), start=1):
        plan = browser_plan(group)
        thresholds[f"group_{i}_truth"] = plan.thresholds["truth"]
        thresholds[f"group_{i}_yes"] = plan.thresholds["yes"]
        epsilon = max(epsilon, plan.epsilon, group.epsilon)
    return thresholds, epsilon


# --- planning ------------------------------------------------------------------------------------


def _per_group_variance(
    design: CheaterDetectionDesign, honest_yes: float | None, cheaters: float
) -> float:
    """``Σ_i (A⁻¹)₀ᵢ²·λ_i(1 − λ_i)``: n_per_group × Var(π̂) with equal group sizes; the worst
    case λ_i(1 − λ_i) = ¼ when ``honest_yes`` is None."""
    row = np.linalg.inv(design.matrix)[0]
    if honest_yes is None:
        variances = np.array([0.25, 0.25])
    else:
        lam = np.array(design.report_probabilities(honest_yes, cheaters))
        variances = lam * (1.0 - lam)
    return float(np.sum(row * row * variances))


def sample_size_per_group(
    design: CheaterDetectionDesign,
    *,
    half_width: float,
    honest_yes: float | None = None,
    cheaters: float = 0.0,
    confidence: float = 0.95,
) -> int:
    """Respondents *per group* for a ±``half_width`` interval on π:
    ``n = ⌈z²·Σ_i (A⁻¹)₀ᵢ²·λ_i(1 − λ_i)/h²⌉`` (worst case λ_i = ½ without a guess)."""
    h = check_half_width(half_width)
    z = z_value(confidence)
    return max(1, math.ceil(z * z * _per_group_variance(design, honest_yes, cheaters) / h / h))


def planned_half_width_per_group(
    design: CheaterDetectionDesign,
    *,
    n_per_group: int,
    honest_yes: float | None = None,
    cheaters: float = 0.0,
    confidence: float = 0.95,
) -> float:
    """``z·√(Σ_i (A⁻¹)₀ᵢ²·λ_i(1 − λ_i)/n)``, the inverse of :func:`sample_size_per_group`."""
    z = z_value(confidence)
    variance = _per_group_variance(design, honest_yes, cheaters)
    return z * math.sqrt(variance / check_n(n_per_group))
