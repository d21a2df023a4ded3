"""Planning a release (DESIGN.md §3, §5).

:func:`release_plan` validates the request (no database writes) and derives the noise.
Sensitivity (DESIGN.md §3), generalized to *weighted contributions*: the release is made of
``m`` independent cell-groups ("contributions"); under add/remove of one respondent the
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
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from deniable.errors import InvalidInput
from dpcore.central import accounting, event_codec
from dpcore.central import calibration as calibrate
from dpcore.central.sensitivity import release_events, unit_noise
from dpcore.errors import PrivacyParameterError
from privacy.services.sensitivity import contribution_count
from surveys.models import Question, Survey

MECHANISMS = ("laplace", "gaussian")
RELEASABLE_KINDS = (
    Question.Kind.YES_NO,
    Question.Kind.CHOICE,
    Question.Kind.CATEGORY,
    Question.Kind.NUMBER,
)


_REQUEST_FIELDS = {"mechanism", "epsilon", "delta", "rho", "questions", "group_by", "request_id"}
# Parameters outside these ranges are refused (400 naming the field), never computed with:
# beyond them the accountants and the noise variance leave the float range (ε²/2 overflows past
# ε ≈ 1.3e154, a discrete-Laplace variance 2t² past t ≈ 1e154) and the release is meaningless
# anyway (ε = 1e6 is no privacy; ε = 1e-12 is noise of scale 1e12 on every count).
PARAMETER_RANGES: dict[str, tuple[float, float]] = {
    "epsilon": (1e-12, 1e6),
    "rho": (1e-24, 1e12),
    "delta": (calibrate.MIN_DELTA, calibrate.MAX_DELTA),  # see there
}


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
    request_id: str | None = None
    analytic_sigma: float | None = None
    question_objects: list[Question] = field(default_factory=list, repr=False)
    contributions: int = 0

    @property
    def events(self) -> list[accounting.Event]:
        return event_codec.decode(self.event)


def _releasable(question: Question) -> bool:
    if question.kind == Question.Kind.NUMBER:
        return question.min_value is not None and question.max_value is not None
    return question.kind in RELEASABLE_KINDS


def _number(data: Mapping[str, Any], name: str, errors: dict[str, list[str]]) -> float | None:
    """A finite number from the request, or None when absent (errors collected by field)."""
    if name not in data or data[name] is None:
        return None
    raw = data[name]
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        errors.setdefault(name, []).append("Must be a number.")
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError, OverflowError):
        errors.setdefault(name, []).append("Must be a number.")
        return None
    if math.isnan(value):
        errors.setdefault(name, []).append("Must be a number, not NaN.")
        return None
    if math.isinf(value):
        errors.setdefault(name, []).append("Must be finite.")
        return None
    return value


def _positive(value: float | None, name: str, errors: dict[str, list[str]]) -> float | None:
    if value is not None and value <= 0:
        errors.setdefault(name, []).append("Must be greater than 0.")
        return None
    return _in_range(value, name, errors)


def _in_range(value: float | None, name: str, errors: dict[str, list[str]]) -> float | None:
    """Refuse a positive parameter outside :data:`PARAMETER_RANGES` (see there)."""
    low, high = PARAMETER_RANGES[name]
    if value is not None and value > 0 and not low <= value <= high:
        errors.setdefault(name, []).append(f"Must lie between {low:g} and {high:g}.")
        return None
    return value


def _select_questions(
    survey: Survey, data: Mapping[str, Any], errors: dict[str, list[str]]
) -> tuple[list[Question], str]:
    """The released questions and the ``group_by`` key ("" for none).

    Default questions: every question (yes/no, choice, category and number), in survey order,
    except the ``group_by`` question itself.
    """
    questions = list(survey.questions.all())
    by_key = {q.key: q for q in questions}

    group_by = data.get("group_by") or ""
    if not isinstance(group_by, str):
        errors.setdefault("group_by", []).append("Must be a question key.")
        group_by = ""
    elif group_by:
        group_q = by_key.get(group_by)
        if group_q is None:
            errors.setdefault("group_by", []).append(f"Unknown question {group_by!r}.")
            group_by = ""
        elif group_q.kind != Question.Kind.CATEGORY:
            errors.setdefault("group_by", []).append(
                f"{group_by!r} is not a category question; only category questions can group."
            )
            group_by = ""

    raw = data.get("questions")
    if raw is None:
        chosen = [q for q in questions if _releasable(q) and q.key != group_by]
    elif not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
        errors.setdefault("questions", []).append("Must be a list of question keys.")
        return [], group_by
    else:
        unknown = [k for k in raw if k not in by_key]
        if unknown:
            errors.setdefault("questions", []).append(f"Unknown question(s): {', '.join(unknown)}.")
            return [], group_by
        if len(set(raw)) != len(raw):
            errors.setdefault("questions", []).append("Each question may be listed once.")
            return [], group_by
        unreleasable = [k for k in raw if by_key[k].kind not in RELEASABLE_KINDS]
        if unreleasable:  # pragma: no cover — every kind is releasable today
            errors.setdefault("questions", []).append(
                f"These questions cannot be released: {', '.join(unreleasable)}."
            )
            return [], group_by
        unbounded = [
            k
            for k in raw
            if by_key[k].kind == Question.Kind.NUMBER
            and (by_key[k].min_value is None or by_key[k].max_value is None)
        ]
        if unbounded:
            errors.setdefault("questions", []).append(
                f"Number questions need design-time bounds: {', '.join(unbounded)}."
            )
            return [], group_by
        if group_by and group_by in raw:
            errors.setdefault("questions", []).append(
                "The group_by question cannot also be released within its own groups."
            )
            return [], group_by
        wanted = set(raw)
        chosen = [q for q in questions if q.key in wanted]
    if not chosen and "questions" not in errors:
        errors.setdefault("questions", []).append("There is no question to release.")
    return chosen, group_by


def release_plan(*, survey: Survey, data: Mapping[str, Any]) -> ReleasePlan:
    """Validate a release request and derive its noise and its accounting event.

    Raises :class:`InvalidInput` naming every bad field; writes nothing.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput.single("non_field_errors", "Expected a JSON object.")
    errors: dict[str, list[str]] = {}
    unknown_fields = sorted(set(data) - _REQUEST_FIELDS)
    if unknown_fields:
        errors["non_field_errors"] = [f"Unknown field(s): {', '.join(unknown_fields)}."]

    mechanism = data.get("mechanism")
    if mechanism not in MECHANISMS:
        errors.setdefault("mechanism", []).append(
            f"Must be one of: {', '.join(MECHANISMS)}."
            if mechanism is not None
            else "This field is required."
        )
    epsilon = _positive(_number(data, "epsilon", errors), "epsilon", errors)
    delta = _number(data, "delta", errors)
    if delta is not None and not 0 < delta < 1:
        errors.setdefault("delta", []).append("Must lie strictly between 0 and 1.")
        delta = None
    delta = _in_range(delta, "delta", errors)
    rho = _positive(_number(data, "rho", errors), "rho", errors)

    if mechanism == "laplace":
        if "epsilon" not in data:
            errors.setdefault("epsilon", []).append("Required for the laplace mechanism.")
        for extra in ("rho", "delta"):
            if data.get(extra) is not None:
                errors.setdefault(extra, []).append("Not used by the laplace mechanism.")
    elif mechanism == "gaussian":
        has_rho, has_eps = data.get("rho") is not None, data.get("epsilon") is not None
        if has_rho == has_eps:
            errors.setdefault("rho", []).append(
                "Give either rho, or epsilon and delta, for the gaussian mechanism."
            )
        elif has_rho and data.get("delta") is not None:
            errors.setdefault("delta", []).append("Not used with rho.")
        elif has_eps and data.get("delta") is None:
            errors.setdefault("delta", []).append("Required with epsilon for gaussian.")

    request_id = data.get("request_id")
    if request_id is not None:
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            errors.setdefault("request_id", []).append("Must be a string.")
        else:
            request_id = str(request_id).strip()
            if not request_id or len(request_id) > 100:
                errors.setdefault("request_id", []).append("Must be 1 to 100 characters.")

    chosen, group_by = _select_questions(survey, data, errors)
    if errors:
        raise InvalidInput(errors)

    q = contribution_count(chosen)
    l1, l2 = float(q), math.sqrt(q)
    analytic_sigma: float | None = None
    try:
        if mechanism == "gaussian" and rho is None:
            assert epsilon is not None and delta is not None
            analytic_sigma = calibrate.analytic_gaussian_sigma(epsilon, delta, l2)
        noise = unit_noise(
            mechanism=str(mechanism), contributions=q, epsilon=epsilon, rho=rho, delta=delta
        )
        rho = noise.rho
        event = event_codec.encode(
            release_events(mechanism=str(mechanism), contributions=q, epsilon=epsilon, rho=rho)
        )
        noise_scale, parameter, variance = noise.scale, noise.parameter, noise.variance
    except PrivacyParameterError as exc:
        raise InvalidInput.single(exc.field, exc.message) from exc

    return ReleasePlan(
        mechanism=str(mechanism),
        epsilon=epsilon,
        delta=delta,
        rho=rho if mechanism == "gaussian" else None,
        noise_scale=noise_scale,
        noise_parameter=parameter,
        noise_variance=variance,
        l1_sensitivity=l1,
        l2_sensitivity=l2,
        questions=[x.key for x in chosen],
        group_by=group_by,
        event=event,
        request_id=request_id,
        analytic_sigma=analytic_sigma,
        question_objects=chosen,
        contributions=q,
    )
