"""Releases and the privacy budget: validate, charge, run, refund (DESIGN.md §3, §5, §6).

Request → plan → charge → task:

1. :func:`release_plan` validates the request (no database writes) and derives the noise.
   Sensitivity (DESIGN.md §3), generalized to *weighted contributions*: the release is made of
   ``m`` independent cell-groups ("contributions"); under add/remove of one respondent the
   cell-group j moves by at most Δ_j (L1 within the group, and also L2 since only one cell of a
   histogram moves):

   * a yes/no, choice or category question: ONE contribution, its histogram, Δ = 1 (one cell
     changes by 1);
   * a number question: TWO contributions — the grid sum U = round(S/s) with Δ = K =
     ⌈B/s⌉ + 1 (:func:`privacy.release_math.sum_sensitivity`, proof there) and the count n with
     Δ = 1;
   * with ``group_by`` the respondent is in one group only, so still the same m contributions.

   Noise is scaled per contribution, from one *unit* scale:

   * ``laplace`` with ε: discrete Laplace of scale t_j = Δ_j·t, t = m/ε, on every cell of
     contribution j. Each contribution is ε/m-DP: P[y | f]/P[y | f′] ≤ exp(|f − f′|/(Δ_j·t)) ≤
     exp(1/t) — also for Δ_j = K, where the privacy-loss distribution is not the Δ = 1 one, but
     the accountant charges discrete Laplace events through the pure-DP (randomized-response)
     curve, which bounds *any* ε/m-DP mechanism. So Σ_j Δ_j/t_j = m/t = ε, and the ledger stores
     m ``LaplaceEvent(ε/m)`` (basic composition gives exactly ε; RDP composes the pieces more
     tightly across releases).
   * ``gaussian`` with ρ: discrete Gaussian with σ_j = Δ_j·σ, σ² = m/(2ρ); each contribution is
     Δ_j²/(2σ_j²) = 1/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020, Thm 14), and they compose to
     ρ = m/(2σ²).
   * ``gaussian`` with (ε, δ): σ = :func:`privacy.accounting.gaussian_sigma_for_budget` at
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

2. :func:`release_request` charges the budget *before* anything runs, in ONE transaction that
   holds a lock on the survey row (``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite, which ignores
   it, a no-op UPDATE of the row takes the database write lock at the start of the transaction):
   all non-refunded ledger events + the new ones are composed with
   :func:`privacy.accounting.epsilon_spent` at the survey's δ; over ``budget_epsilon`` → 409
   ``budget_exceeded`` with what remains. Otherwise the ``Release`` (pending) and its
   ``LedgerEntry`` are created and the task is enqueued on commit. Broker failures are logged and
   swallowed: the release stays pending and :func:`releases_sweep` re-enqueues it.

3. :func:`release_run` (the Celery task body) computes counts, adds exact integer noise and stores
   the results and ``done`` in ONE transaction under a row lock; it skips finished releases, so
   redelivery is harmless. A failure before any result is stored marks the release ``failed`` and
   refunds its ledger entry; a ``done`` release is never changed (also enforced by
   ``Release.save`` and a database trigger).
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from deniable.errors import Conflict, InvalidInput
from privacy import accounting, calibrate, noise, release_math
from privacy.errors import PrivacyParameterError
from privacy.models import LedgerEntry, Release
from privacy.selectors import ledger_event_objects, survey_ledger_events
from surveys import designs
from surveys.models import Question, Survey

if TYPE_CHECKING:
    from surveys.selectors import NumberSums

logger = logging.getLogger(__name__)

MECHANISMS = ("laplace", "gaussian")
RELEASABLE_KINDS = (
    Question.Kind.YES_NO,
    Question.Kind.CHOICE,
    Question.Kind.CATEGORY,
    Question.Kind.NUMBER,
)
DEFAULT_CONFIDENCE = 0.95
# A release whose task crashed this many times is failed (and refunded) instead of retried.
MAX_ATTEMPTS = 5
_REQUEST_FIELDS = {"mechanism", "epsilon", "delta", "rho", "questions", "group_by", "request_id"}
# Parameters outside these ranges are refused (400 naming the field), never computed with:
# beyond them the accountants and the noise variance leave the float range (ε²/2 overflows past
# ε ≈ 1.3e154, a discrete-Laplace variance 2t² past t ≈ 1e154) and the release is meaningless
# anyway (ε = 1e6 is no privacy; ε = 1e-12 is noise of scale 1e12 on every count).
PARAMETER_RANGES: dict[str, tuple[float, float]] = {
    "epsilon": (1e-12, 1e6),
    "rho": (1e-24, 1e12),
    "delta": (1e-100, 1.0),
}


# --------------------------------------------------------------------------- planning


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
        return ledger_event_objects(self.event)


def _releasable(question: Question) -> bool:
    if question.kind == Question.Kind.NUMBER:
        return question.min_value is not None and question.max_value is not None
    return question.kind in RELEASABLE_KINDS


def contribution_count(questions: Sequence[Question]) -> int:
    """m: one contribution per histogram question, two (sum, count) per number question."""
    return sum(2 if q.kind == Question.Kind.NUMBER else 1 for q in questions)


@dataclass(frozen=True)
class NumberGrid:
    """A number question's design-time grid: step s, sum sensitivity K, float-safe N."""

    lo: float
    hi: float
    step: Fraction
    sensitivity: int
    max_respondents: int


def number_grid(question: Question) -> NumberGrid:
    """The grid of a number question, from its declared bounds only (never from the data)."""
    lo, hi = float(question.min_value), float(question.max_value)  # type: ignore[arg-type]
    step = release_math.grid_step(lo, hi)
    return NumberGrid(
        lo=lo,
        hi=hi,
        step=step,
        sensitivity=release_math.sum_sensitivity(lo, hi, step),
        max_respondents=release_math.max_safe_respondents(lo, hi, step),
    )


def scaled_parameter(mechanism: str, unit: Fraction, sensitivity: int) -> Fraction:
    """The sampler parameter for a contribution of sensitivity Δ: Δ·t (laplace) or Δ²·σ²."""
    if mechanism == "laplace":
        return unit * sensitivity
    return unit * sensitivity * sensitivity


def parameter_variance(mechanism: str, parameter: Fraction) -> float:
    """Variance of one draw at the exact sampler parameter (t, or σ²)."""
    if mechanism == "laplace":
        return calibrate.discrete_laplace_variance(float(parameter))
    return calibrate.discrete_gaussian_variance(math.sqrt(parameter))


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
        if mechanism == "laplace":
            assert epsilon is not None
            t = Fraction(q) / Fraction(epsilon)  # exact: t = m/ε for the float ε recorded
            eps_each = math.nextafter(epsilon / q, math.inf)  # never under-charge by rounding
            event = {"type": "laplace", "epsilon_each": eps_each, "count": q}
            noise_scale, parameter = float(t), t
            variance = calibrate.discrete_laplace_variance(noise_scale)
        elif rho is not None:
            sigma2 = Fraction(q) / (2 * Fraction(rho))
            noise_scale, parameter = math.sqrt(sigma2), sigma2
            event = {"type": "zcdp", "rho": math.nextafter(float(rho), math.inf)}
            variance = calibrate.discrete_gaussian_variance(noise_scale)
        else:
            assert epsilon is not None and delta is not None
            sigma = accounting.gaussian_sigma_for_budget(epsilon, delta, l2, discrete=True)
            analytic_sigma = calibrate.analytic_gaussian_sigma(epsilon, delta, l2)
            parameter = Fraction(sigma) ** 2
            noise_scale = sigma
            rho = float(Fraction(q) / (2 * parameter))
            event = {"type": "zcdp", "rho": math.nextafter(rho, math.inf)}
            variance = calibrate.discrete_gaussian_variance(noise_scale)
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


# --------------------------------------------------------------------------- charging


def _lock_survey(survey: Survey) -> Survey:
    """Take the survey's budget lock for the rest of the current transaction.

    PostgreSQL: ``SELECT … FOR UPDATE`` on the survey row. SQLite ignores FOR UPDATE, so a no-op
    UPDATE takes the database write lock up front (SQLite has one writer at a time), which
    serializes concurrent charges as well.
    """
    if connection.vendor == "sqlite":
        Survey.objects.filter(pk=survey.pk).update(budget_epsilon=survey.budget_epsilon)
        return Survey.objects.get(pk=survey.pk)
    return Survey.objects.select_for_update().get(pk=survey.pk)


def _remaining(survey: Survey, spent: float) -> dict[str, float]:
    return {
        "epsilon": max(0.0, survey.budget_epsilon - spent),
        "delta": survey.budget_delta,
    }


def release_enqueue(*, release_id: uuid.UUID | str) -> bool:
    """Send the compute task to the broker; never raises (a failure leaves it to the sweeper).

    ``retry=False``: with the broker socket timeouts from settings a dead or hung Redis fails in
    seconds instead of blocking the request (DESIGN.md §6).
    """
    from privacy.tasks import release_compute

    try:
        release_compute.apply_async(args=[str(release_id)], retry=False)
    except Exception as exc:  # any broker failure: leave it pending for the sweeper
        logger.debug("release %s: enqueue error", release_id, exc_info=True)
        logger.warning(
            "release %s: enqueue failed (%s); it stays pending for the sweeper",
            release_id,
            type(exc).__name__,
        )
        return False
    return True


def release_request(
    *, survey: Survey, user: AbstractBaseUser | None, data: Mapping[str, Any]
) -> tuple[Release, bool]:
    """Validate, charge the budget and create a pending release; enqueue it on commit.

    Returns ``(release, created)``. The same ``request_id`` again returns the existing release
    with ``created=False`` and charges nothing (whatever the rest of the body says).
    Raises :class:`InvalidInput` (400) or :class:`Conflict` ``budget_exceeded`` (409); neither
    writes anything.
    """
    plan = release_plan(survey=survey, data=data)
    with transaction.atomic():
        locked = _lock_survey(survey)
        if plan.request_id is not None:
            existing = Release.objects.filter(survey=locked, request_id=plan.request_id).first()
            if existing is not None:
                return existing, False
        before = survey_ledger_events(survey=locked)
        spent_before = accounting.epsilon_spent(before, locked.budget_delta).epsilon
        if not accounting.can_afford(
            before, plan.events, locked.budget_epsilon, locked.budget_delta
        ):
            after = accounting.epsilon_spent([*before, *plan.events], locked.budget_delta)
            raise Conflict(
                f"This release would bring the composed ε to {after.epsilon:.6g} "
                f"({after.method}), over the survey's budget of {locked.budget_epsilon:g}.",
                code="budget_exceeded",
                remaining=_remaining(locked, spent_before),
            )
        release = Release.objects.create(
            survey=locked,
            requested_by=user if getattr(user, "is_authenticated", False) else None,
            request_id=plan.request_id,
            mechanism=plan.mechanism,
            epsilon=plan.epsilon,
            delta=plan.delta,
            rho=plan.rho,
            noise_scale=plan.noise_scale,
            l1_sensitivity=plan.l1_sensitivity,
            l2_sensitivity=plan.l2_sensitivity,
            questions=plan.questions,
            group_by=plan.group_by,
        )
        LedgerEntry.objects.create(survey=locked, release=release, event=plan.event)
        release_id = release.pk
        transaction.on_commit(lambda: release_enqueue(release_id=release_id))
    return release, True


def release_preview(*, survey: Survey, data: Mapping[str, Any]) -> dict[str, Any]:
    """What a release would cost and how accurate it would be — charges nothing.

    Expected errors use :func:`privacy.calibrate.expected_estimate_error` (worst case over the
    design's feasible λ) at the survey's current number of respondents (its planned n while
    there are none), divided evenly over the groups when grouping. For a number question the
    expected SE of the mean is :func:`privacy.release_math.number_estimate`'s formula at that n
    with the worst-case mean² = B²: ((max − min)/2)²/n + (V_S + B²·V_n)/n²; its
    ``expected_sum_std_error`` is the noise SD of the released sum (s·√Var(η_S)).
    """
    from surveys.selectors import survey_respondent_count

    plan = release_plan(survey=survey, data=data)
    before = survey_ledger_events(survey=survey)
    delta = survey.budget_delta
    spent = accounting.epsilon_spent(before, delta)
    alone = accounting.epsilon_spent(plan.events, delta)
    after = accounting.epsilon_spent([*before, *plan.events], delta)
    respondents = survey_respondent_count(survey=survey)
    n = float(respondents or survey.planned_n or 1)
    groups = 1
    if plan.group_by:
        group_q = next(q for q in survey.questions.all() if q.key == plan.group_by)
        groups = max(1, len(group_q.options))
    z = release_math.z_value(DEFAULT_CONFIDENCE)
    per_question = []
    n_group = max(1.0, n / groups)
    for q in plan.question_objects:
        entry: dict[str, Any] = {"key": q.key, "kind": q.kind}
        if q.kind == Question.Kind.NUMBER:
            grid = number_grid(q)
            sum_parameter = scaled_parameter(plan.mechanism, plan.noise_parameter, grid.sensitivity)
            sum_variance = float(grid.step) ** 2 * parameter_variance(plan.mechanism, sum_parameter)
            bound = max(abs(grid.lo), abs(grid.hi))
            half_range = (grid.hi - grid.lo) / 2.0
            se = math.sqrt(
                half_range**2 / n_group
                + (sum_variance + bound**2 * plan.noise_variance) / n_group**2
            )
            entry.update(
                grid_step=float(grid.step),
                sum_sensitivity=grid.sensitivity,
                expected_sum_std_error=math.sqrt(sum_variance),
            )
        else:
            c, d = _linear_form(q)
            se = calibrate.expected_estimate_error(
                c=c, d=d, n=n_group, noise_variance=plan.noise_variance
            )
        entry.update(expected_std_error=se, expected_half_width=z * se)
        per_question.append(entry)
    return {
        "mechanism": plan.mechanism,
        "questions": per_question,
        "group_by": plan.group_by or None,
        "groups": groups,
        "contributions": plan.contributions,
        "l1_sensitivity": plan.l1_sensitivity,
        "l2_sensitivity": plan.l2_sensitivity,
        "noise_scale": plan.noise_scale,
        "analytic_sigma": plan.analytic_sigma,
        "rho": plan.rho,
        "count_std_error": math.sqrt(plan.noise_variance),
        "epsilon_cost": alone.epsilon,
        "epsilon_spent_before": spent.epsilon,
        "epsilon_after": after.epsilon,
        "method_after": after.method,
        "epsilon_total": survey.budget_epsilon,
        "delta_total": delta,
        "fits": after.epsilon <= survey.budget_epsilon * (1 + accounting.BUDGET_RELATIVE_SLACK),
        "respondents_assumed": int(n),
        "confidence": DEFAULT_CONFIDENCE,
    }


# --------------------------------------------------------------------------- running


def _linear_form(question: Question) -> tuple[float, float]:
    """(c, d) with P(report cell) = c·π + d: the design's for yes/no and k-RR, (1, 0) direct."""
    design = designs.question_design(question)
    if design is None:
        return 1.0, 0.0
    return float(design.c), float(design.d)


def _sample(plan_mechanism: str, parameter: Fraction, size: int) -> list[int]:
    if plan_mechanism == "laplace":
        return noise.sample_discrete_laplace_many(parameter, size)
    return noise.sample_discrete_gaussian_many(parameter, size)


def _noisy_cells(mechanism: str, parameter: Fraction, cells: Mapping[str, int]) -> dict[str, int]:
    keys = list(cells)
    draws = _sample(mechanism, parameter, len(keys))
    return {k: int(cells[k]) + z for k, z in zip(keys, draws, strict=True)}


@dataclass(frozen=True)
class _NoisyNumber:
    """A number question's noisy grid sum Ũ = U + η_S and noisy count ñ = n + η_n."""

    sum_units: int
    count: int


def _noisy_number(
    mechanism: str, unit: Fraction, grid: NumberGrid, sums: NumberSums
) -> _NoisyNumber:
    """Grid the stored float sum (U = round(S/s), exact), then add integer noise to U and n.

    Refuses (ValueError → the release fails and is refunded) when the tally holds more answers
    than the floating-point margin of :func:`privacy.release_math.sum_sensitivity` covers.
    """
    if sums.n + 1 > grid.max_respondents:
        raise ValueError("too many answers for the float-sum sensitivity bound")
    units = release_math.grid_sum(sums.total, grid.step)
    sum_draw = _sample(mechanism, scaled_parameter(mechanism, unit, grid.sensitivity), 1)[0]
    count_draw = _sample(mechanism, unit, 1)[0]
    return _NoisyNumber(sum_units=units + sum_draw, count=int(sums.n) + count_draw)


def _number_result(
    question: Question,
    grid: NumberGrid,
    noisy: _NoisyNumber,
    sum_noise_variance: float,
    count_noise_variance: float,
    confidence: float,
) -> dict[str, Any]:
    """Result entry of a number question; variances are of the noise on Ũ (grid units²) and ñ."""
    value_variance = float(grid.step) ** 2 * sum_noise_variance
    est = release_math.number_estimate(
        noisy_sum_units=noisy.sum_units,
        noisy_count=noisy.count,
        step=grid.step,
        lo=grid.lo,
        hi=grid.hi,
        sum_noise_variance=value_variance,
        count_noise_variance=count_noise_variance,
        confidence=confidence,
    )
    return {
        "key": question.key,
        "kind": question.kind,
        "min": grid.lo,
        "max": grid.hi,
        "grid_step": float(grid.step),
        "sum_sensitivity": grid.sensitivity,
        "noisy_sum_units": noisy.sum_units,
        "noisy_sum": est.noisy_sum,
        "noisy_count": est.noisy_count,
        "noisy_total": est.noisy_count,
        "sum_noise_variance": value_variance,
        "sum_std_error": math.sqrt(value_variance),
        "noise_variance": count_noise_variance,
        "count_std_error": math.sqrt(count_noise_variance),
        "mean": est.mean,
        "estimate": est.mean,
        "estimate_unclipped": est.mean_unclipped,
        "std_error": est.std_error,
        "ci_low": est.ci_low,
        "ci_high": est.ci_high,
        "note": est.note,
    }


def _question_result(
    question: Question, noisy: Mapping[str, int], noise_variance: float, confidence: float
) -> dict[str, Any]:
    c, d = _linear_form(question)
    estimates = release_math.cell_estimates(
        noisy, c=c, d=d, noise_variance=noise_variance, confidence=confidence
    )
    entry: dict[str, Any] = {
        "key": question.key,
        "kind": question.kind,
        "noisy_counts": dict(noisy),
        "noisy_total": int(sum(noisy.values())),
        "noise_variance": noise_variance,
    }
    if question.kind == Question.Kind.YES_NO:
        yes = next(e for e in estimates if e.cell == "yes")
        entry.update(
            estimate=yes.estimate,
            estimate_unclipped=yes.estimate_unclipped,
            std_error=yes.std_error,
            ci_low=yes.ci_low,
            ci_high=yes.ci_high,
        )
    else:
        entry.update(estimate=None, std_error=None, ci_low=None, ci_high=None)
        entry["options"] = [e.as_dict() for e in estimates]
    return entry


def release_results(
    *,
    release: Release,
    counts_cells: Mapping[str, Mapping[str, Mapping[str, int]]],
    questions: Sequence[Question],
    noise_parameter: Fraction,
    noise_variance: float,
    counts_sums: Mapping[str, Mapping[str, NumberSums]] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Add noise to every contribution and debias. ``counts_cells``/``counts_sums`` are
    ``SurveyCounts.cells``/``.sums``; ``noise_parameter`` and ``noise_variance`` are the *unit*
    ones (Δ = 1), scaled per contribution (module notes).

    With ``group_by`` only the grouped cells get noise; the overall counts (and number sums) are
    their sums (post-processing, free), whose noise variance is G·V for G groups.
    """
    mechanism = release.mechanism
    grids = {q.key: number_grid(q) for q in questions if q.kind == Question.Kind.NUMBER}
    sum_variances = {
        key: parameter_variance(
            mechanism, scaled_parameter(mechanism, noise_parameter, grid.sensitivity)
        )
        for key, grid in grids.items()
    }
    sums_by_group = counts_sums or {}
    results: dict[str, Any] = {
        "confidence": confidence,
        "mechanism": mechanism,
        "noise_scale": release.noise_scale,
        "noise_variance": noise_variance,
        "group_by": release.group_by or None,
    }

    def noisy_group(group: str) -> dict[str, dict[str, int] | _NoisyNumber]:
        out: dict[str, dict[str, int] | _NoisyNumber] = {}
        for q in questions:
            if q.kind == Question.Kind.NUMBER:
                out[q.key] = _noisy_number(
                    mechanism, noise_parameter, grids[q.key], sums_by_group[group][q.key]
                )
            else:
                out[q.key] = _noisy_cells(mechanism, noise_parameter, counts_cells[group][q.key])
        return out

    def entry(q: Question, noisy: dict[str, int] | _NoisyNumber, groups: int) -> dict[str, Any]:
        if isinstance(noisy, _NoisyNumber):
            return _number_result(
                q,
                grids[q.key],
                noisy,
                sum_variances[q.key] * groups,
                noise_variance * groups,
                confidence,
            )
        return _question_result(q, noisy, noise_variance * groups, confidence)

    if not release.group_by:
        noisy = noisy_group("")
        results["questions"] = [entry(q, noisy[q.key], 1) for q in questions]
        return results
    groups = list(counts_cells)
    noisy_by_group = {g: noisy_group(g) for g in groups}
    results["groups"] = [
        {
            "group": g,
            "questions": [entry(q, noisy_by_group[g][q.key], 1) for q in questions],
        }
        for g in groups
    ]
    overall = []
    for q in questions:
        parts = [noisy_by_group[g][q.key] for g in groups]
        summed: dict[str, int] | _NoisyNumber
        if q.kind == Question.Kind.NUMBER:
            numbers = [p for p in parts if isinstance(p, _NoisyNumber)]
            summed = _NoisyNumber(
                sum_units=sum(p.sum_units for p in numbers), count=sum(p.count for p in numbers)
            )
        else:
            summed = {}
            for part in parts:
                assert isinstance(part, dict)
                for cell, value in part.items():
                    summed[cell] = summed.get(cell, 0) + value
        overall.append(entry(q, summed, len(groups)))
    results["questions"] = overall
    return results


def _noise_parameter(release: Release, questions: Sequence[Question]) -> tuple[Fraction, float]:
    """Rebuild the exact *unit* sampler parameter (t or σ²) the plan derived for this release."""
    m = contribution_count(questions)
    if release.mechanism == "laplace":
        t = Fraction(m) / Fraction(release.epsilon)
        return t, calibrate.discrete_laplace_variance(float(t))
    if release.delta is None:  # ρ given: σ² = m/(2ρ)
        sigma2 = Fraction(m) / (2 * Fraction(release.rho))
    else:  # (ε, δ): σ was calibrated at request time and stored
        sigma2 = Fraction(release.noise_scale) ** 2
    return sigma2, calibrate.discrete_gaussian_variance(math.sqrt(sigma2))


def _store_delay() -> None:
    """Test hook: ``DENIABLE_RELEASE_STORE_DELAY`` seconds (env; 0 in production) slept while
    holding the row lock just before the results are stored, so an integration test can SIGKILL
    the worker mid-task deterministically."""
    delay = float(getattr(settings, "DENIABLE_RELEASE_STORE_DELAY", 0) or 0)
    if delay > 0:
        time.sleep(delay)


def release_fail(*, release_id: uuid.UUID | str, error: str) -> Release | None:
    """Mark a release failed and refund its charge — only if no result was stored (not done)."""
    with transaction.atomic():
        release = Release.objects.select_for_update().filter(pk=release_id).first()
        if release is None or release.is_final:
            return release
        release.status = Release.Status.FAILED
        release.error = error[:2000]
        release.finished_at = timezone.now()
        release.save(update_fields=["status", "error", "finished_at"])
        LedgerEntry.objects.filter(release=release, refunded=False).update(
            refunded=True, refunded_at=timezone.now()
        )
    return release


def release_run(*, release_id: uuid.UUID | str) -> str:
    """Compute one release (the body of :func:`privacy.tasks.release_compute`); returns status.

    Idempotent: a done or failed release is skipped. Raises ``Release.DoesNotExist`` if the row
    is not there (the task retries). Any other exception before the results are stored fails and
    refunds the release, then propagates.
    """
    from surveys.selectors import survey_counts

    with transaction.atomic():
        release = Release.objects.select_for_update().get(pk=release_id)
        if release.is_final:
            return release.status
        if release.attempts >= MAX_ATTEMPTS:
            release_fail(release_id=release.pk, error="Too many attempts; the charge is refunded.")
            return Release.Status.FAILED
        release.status = Release.Status.RUNNING
        release.started_at = timezone.now()
        release.attempts += 1
        release.save(update_fields=["status", "started_at", "attempts"])

    try:
        with transaction.atomic():
            release = (
                Release.objects.select_for_update().select_related("survey").get(pk=release_id)
            )
            if release.is_final:  # another delivery finished it meanwhile
                return release.status
            survey = release.survey
            by_key = {q.key: q for q in survey.questions.all()}
            questions = [by_key[k] for k in release.questions]
            counts = survey_counts(
                survey=survey,
                question_keys=release.questions,
                group_by=release.group_by or None,
            )
            parameter, variance = _noise_parameter(release, questions)
            results = release_results(
                release=release,
                counts_cells=counts.cells,
                counts_sums=counts.sums,
                questions=questions,
                noise_parameter=parameter,
                noise_variance=variance,
            )
            _store_delay()
            release.results = results
            release.status = Release.Status.DONE
            release.finished_at = timezone.now()
            release.error = ""
            release.save(update_fields=["results", "status", "finished_at", "error"])
            return release.status
    except (OperationalError, InterfaceError):
        # The database blinked (restart, failover): nothing was stored, the release stays
        # running, and the task's autoretry (or, past its retries, the sweeper) runs it again.
        # MAX_ATTEMPTS still bounds the total, so a release always ends done or refunded.
        raise
    except Exception as exc:
        from celery.exceptions import SoftTimeLimitExceeded

        if isinstance(exc, SoftTimeLimitExceeded):
            message = "The computation took too long; the charge is refunded."
        else:
            message = f"The computation failed ({type(exc).__name__}); the charge is refunded."
        release_fail(release_id=release_id, error=message)
        raise


def releases_sweep(
    *, pending_after_seconds: float | None = None, running_after_seconds: float | None = None
) -> list[str]:
    """Re-enqueue releases stuck pending (enqueue lost, broker down) or running past the hard
    time limit (worker killed). Returns the ids re-enqueued (all of them are attempted)."""
    now = timezone.now()
    pending_after = (
        pending_after_seconds
        if pending_after_seconds is not None
        else settings.DENIABLE_RELEASE_PENDING_STALE_SECONDS
    )
    running_after = (
        running_after_seconds
        if running_after_seconds is not None
        else settings.DENIABLE_RELEASE_RUNNING_STALE_SECONDS
    )
    stale = list(
        Release.objects.filter(
            status=Release.Status.PENDING, created_at__lte=now - timedelta(seconds=pending_after)
        ).values_list("pk", flat=True)
    ) + list(
        Release.objects.filter(
            status=Release.Status.RUNNING, started_at__lte=now - timedelta(seconds=running_after)
        ).values_list("pk", flat=True)
    )
    sent = []
    for pk in stale:
        if release_enqueue(release_id=pk):
            sent.append(str(pk))
    if stale:
        logger.info("releases sweep: %d stale, %d re-enqueued", len(stale), len(sent))
    return sent
