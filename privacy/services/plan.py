"""Planning a release (docs/privacy-model.md#sensitivity, docs/formulas.md#calibration).

:func:`release_plan` derives the noise of a request validated by
:class:`privacy.inputs.ReleaseRequestSerializer` (no database writes).
Sensitivity (docs/formulas.md#sensitivity), generalized to *weighted contributions*: the release is
made of ``m`` independent cell-groups ("contributions"); under add/remove of one respondent the
cell-group j moves by at most Δ_j (L1 within the group, and also L2 since only one cell of a
histogram moves):

* a yes/no, choice or category question: ONE contribution, its histogram, Δ = 1 (one cell
  changes by 1);
* a number question: TWO contributions — the grid sum U = round(S/s) with Δ = K =
  ⌈B/s⌉ + 1 (:func:`dpcore.central.sensitivity.sum_sensitivity`, proof there) and the count n with
  Δ = 1;
* with ``group_by`` the respondent is in one group only, so still the same m contributions.

Noise is scaled per contribution, from one *unit* scale:

* ``laplace`` with ε: discrete Laplace of scale t_j = Δ_j·t, t = m/ε, on every cell of
  contribution j. Each contribution is ε/m-DP: P[y | f]/P[y | f′] ≤ exp(|f − f′|/(Δ_j·t)) ≤
  exp(1/t) — also for Δ_j = K, where the privacy-loss distribution is not the Δ = 1 one, but
  the accountant charges discrete Laplace events through the pure-DP (randomized-response)
  curve, which bounds *any* ε/m-DP mechanism. So Σ_j Δ_j/t_j = m/t = ε, and the ledger stores
  m ``DiscreteLaplaceEvent(ε/m)`` (basic composition gives exactly ε; RDP composes the pieces more
  tightly across releases).
* ``gaussian`` with ρ: discrete Gaussian with σ_j = Δ_j·σ, σ² = m/(2ρ); each contribution is
  Δ_j²/(2σ_j²) = 1/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020, Thm 14), and they compose to
  ρ = m/(2σ²).
* ``gaussian`` with (ε, δ): σ = :func:`dpcore.central.accounting.gaussian_sigma_for_budget` at
  Δ₂ = √m — the smallest σ whose *charged* ε at δ (through zCDP/RDP, the accountants that are
  proven for the *discrete* Gaussian) is ≤ ε. The analytic Gaussian σ (Balle & Wang 2018) is
  only proven for continuous noise; it is reported in the preview for comparison. The event
  charged is ρ = m/(2σ²)-zCDP.

``Release.noise_scale`` is the unit scale (t or σ: exactly the scale on every histogram cell
and on every count); ``l1_sensitivity``/``l2_sensitivity`` are m and √m in those units
(Σ_j Δ_j/t_j·t and √(Σ_j (Δ_j/σ_j)²)·σ). A number question's sum gets K times the unit
scale; its results carry the grid step s and K.

Default questions: every question except the ``group_by`` one — number questions included
(each costs two contributions, so listing questions explicitly buys less noise per question).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from deniable.errors import InvalidInput
from dpcore.central import accounting, event_codec
from dpcore.central.mechanisms import mechanism_of
from dpcore.central.release_noise import Noiser
from dpcore.errors import PrivacyParameterError
from privacy.inputs import MECHANISMS, PARAMETER_RANGES
from privacy.services.sensitivity import contribution_sensitivities
from privacy.specs import ReleaseSpec
from surveys.models import Question, Survey

__all__ = ["MECHANISMS", "PARAMETER_RANGES", "ReleasePlan", "release_plan"]


@dataclass(frozen=True)
class ReleasePlan:
    """A validated release request and the noise it implies (nothing stored yet)."""

    mechanism: str
    epsilon: float | None
    delta: float | None
    rho: float | None
    # Unit noise (Δ = 1 contributions): discrete Laplace scale t, or discrete Gaussian σ
    # (``noise_scale``), with the exact rational parameter handed to the sampler (t, or σ²).
    # A contribution with sensitivity Δ gets Δ·t, or (Δσ)².
    noise_scale: float
    noise_parameter: Fraction
    noise_variance: float
    l1_sensitivity: float
    l2_sensitivity: float
    questions: list[str]
    group_by: str
    event: dict[str, Any]
    noiser: Noiser | None  # None for the exponential mechanism (no noise: a selection)
    request_id: str | None = None
    analytic_sigma: float | None = None
    question_objects: list[Question] = field(default_factory=list, repr=False)
    contributions: int = 0
    statistic: str = ""
    quantile: float | None = None

    @property
    def events(self) -> list[accounting.Event]:
        return event_codec.decode(self.event)


@dataclass(frozen=True)
class _Noise:
    """The unit noise of a release, the events it is charged as, and the analytic σ shown for
    comparison with (ε, δ)."""

    noiser: Noiser
    events: list[accounting.Event]
    analytic_sigma: float | None


def _noise(spec: ReleaseSpec, sensitivities: list[int]) -> _Noise:
    """The mechanism's unit noise for the contributions of these sensitivities and its charge.

    One derivation: the typed mechanism's :meth:`unit_noise` and :meth:`events`
    (:mod:`dpcore.central.mechanisms`; ``privacy.services.run`` reads the same mechanism back
    from the stored release). The events name the exact parts (grid sums as shifted discrete
    Laplace, each discrete Gaussian with its Δ; issue 13) and σ is calibrated for them — here,
    before the budget lock is taken.
    """
    m = len(sensitivities)
    try:
        mechanism = mechanism_of(
            spec.mechanism, epsilon=spec.epsilon, delta=spec.delta, rho=spec.rho
        )
        unit = mechanism.unit_noise(m, sensitivities)
        events = mechanism.events(m, unit, sensitivities)
        analytic_sigma = mechanism.analytic_sigma(m)
    except PrivacyParameterError as exc:
        raise InvalidInput.single(exc.field, exc.message) from exc
    return _Noise(Noiser(mechanism, unit), events, analytic_sigma)


def release_plan(*, survey: Survey, spec: ReleaseSpec) -> ReleasePlan:
    """Derive a validated request's noise and its accounting event; writes nothing.

    ``spec`` is made by :class:`privacy.inputs.ReleaseRequestSerializer` (which names every bad
    field); a parameter the calibration cannot meet is still an :class:`InvalidInput`.
    """
    by_key = {q.key: q for q in survey.questions.all()}
    chosen = [by_key[key] for key in spec.questions]
    if spec.mechanism == "exponential":
        return _selection_plan(survey, spec, chosen)
    sensitivities = contribution_sensitivities(chosen)
    m = len(sensitivities)
    noise = _noise(spec, sensitivities)
    noiser = noise.noiser
    return ReleasePlan(
        mechanism=spec.mechanism,
        epsilon=spec.epsilon,
        delta=spec.delta,
        rho=noiser.unit.rho,
        noise_scale=noiser.unit.scale,
        noise_parameter=noiser.unit.parameter,
        noise_variance=noiser.unit.variance,
        l1_sensitivity=float(m),
        l2_sensitivity=math.sqrt(m),
        questions=list(spec.questions),
        group_by=spec.group_by,
        event=event_codec.encode_release(noise.events),
        noiser=noiser,
        request_id=spec.request_id,
        analytic_sigma=noise.analytic_sigma,
        question_objects=chosen,
        contributions=m,
    )


def _selection_plan(survey: Survey, spec: ReleaseSpec, chosen: list[Question]) -> ReleasePlan:
    """The exponential mechanism (issue 30, :mod:`privacy.services.selection`): ε/m per question,
    refused (400) when a question has no published answer."""
    from privacy.services import selection

    selection.selection_check(survey=survey, questions=chosen)
    fields = selection.selection_plan_fields(spec)
    return ReleasePlan(
        mechanism=spec.mechanism,
        epsilon=spec.epsilon,
        delta=None,
        rho=None,
        noise_scale=fields["noise_scale"],
        noise_parameter=Fraction(0),
        noise_variance=0.0,
        l1_sensitivity=fields["l1_sensitivity"],
        l2_sensitivity=fields["l2_sensitivity"],
        questions=list(spec.questions),
        group_by="",
        event=fields["event"],
        noiser=None,
        request_id=spec.request_id,
        question_objects=chosen,
        contributions=fields["contributions"],
        statistic=spec.statistic,
        quantile=spec.q if spec.statistic == "quantile" else None,
    )
