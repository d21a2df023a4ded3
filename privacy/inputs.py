"""The input serializer of a release request (and its preview): THE validator of those bodies.

Sensitivity is counted in *contributions*: a yes/no, choice or category question is one (its
histogram), a number question two (its clipped sum on an integer grid, and its count), so the
noise scale on each count is m/ε (laplace) or σ = √(m/(2ρ)) (gaussian) for m contributions, and
a number question's sum gets K = ⌈B/s⌉ + 1 times that scale (:mod:`privacy.services.plan`).

Parameters outside :data:`PARAMETER_RANGES` are refused (400 naming the field), never computed
with: beyond them the accountants and the noise variance leave the float range (ε²/2 overflows
past ε ≈ 1.3e154, a discrete-Laplace variance 2t² past t ≈ 1e154) and the release is meaningless
anyway (ε = 1e6 is no privacy; ε = 1e-12 is noise of scale 1e12 on every count). The rules that
need the survey's questions (``questions``, ``group_by``) read ``context["questions"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from deniable.input_fields import StrictCharField, StrictFloatField
from deniable.inputs import validate_input
from dpcore.central import calibration as calibrate
from privacy.specs import ReleaseSpec
from surveys.kinds.registry import kind_of
from surveys.models import Question

MECHANISMS = ("laplace", "gaussian", "exponential")
#: The exponential mechanism's statistics (issue 30) and the question kinds' selection each takes
#: (``release_selection`` on :mod:`surveys.kinds`).
STATISTICS = {"median": "quantile", "quantile": "quantile", "mode": "mode"}
PARAMETER_RANGES: dict[str, tuple[float, float]] = {
    "epsilon": (1e-12, 1e6),
    "rho": (1e-24, 1e12),
    "delta": (calibrate.MIN_DELTA, calibrate.MAX_DELTA),  # see there
}
NON_FIELD = "non_field_errors"


class ParameterField(StrictFloatField):
    """A privacy parameter within :data:`PARAMETER_RANGES`; a numeric string is read as its
    number (the API always took ``"0.5"``), ``NaN``/``Infinity`` literals are refused by name."""

    default_error_messages = {"invalid": "Must be a finite number."}

    def __init__(self, name: str, **kwargs: Any) -> None:
        low, high = PARAMETER_RANGES[name]
        message = f"Must lie between {low:g} and {high:g}."
        super().__init__(
            required=False,
            allow_null=True,
            min_value=low,
            max_value=high,
            error_messages={"min_value": message, "max_value": message},
            **kwargs,
        )

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, str) and len(data) <= 100:
            try:
                data = float(data)
            except ValueError:
                self.fail("invalid")
        return super().to_internal_value(data)


class RequestIdField(StrictCharField):
    """An idempotency key: a string (or a whole number, read as its digits), 1 to 100 chars."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, int) and not isinstance(data, bool):
            data = str(data)
        return super().to_internal_value(data)


def _selection_rules(attrs: Mapping[str, Any]) -> dict[str, str]:
    """The exponential mechanism: ε, a statistic, q for a quantile only; no δ, ρ or group_by."""
    errors = {
        n: "Not used by the exponential mechanism."
        for n in ("rho", "delta")
        if attrs.get(n) is not None
    }
    if attrs.get("epsilon") is None:
        errors["epsilon"] = "Required for the exponential mechanism."
    if attrs.get("group_by"):
        errors["group_by"] = "The exponential mechanism releases no groups."
    statistic, q = attrs.get("statistic"), attrs.get("q")
    if not statistic:
        errors["statistic"] = f"Required for the exponential mechanism: {', '.join(STATISTICS)}."
    elif statistic == "quantile" and q is None:
        errors["q"] = "Required for a quantile: a number strictly between 0 and 1."
    elif statistic != "quantile" and q is not None:
        errors["q"] = f"Only a quantile takes q (a {statistic} does not)."
    elif q is not None and not 0.0 < q < 1.0:
        errors["q"] = "Must be a number strictly between 0 and 1."
    return errors


def _mechanism_rules(attrs: Mapping[str, Any]) -> dict[str, str]:
    """Which parameters each mechanism needs and refuses ({field: message})."""
    if attrs["mechanism"] == "exponential":
        return _selection_rules(attrs)
    has = {name: attrs.get(name) is not None for name in ("epsilon", "delta", "rho")}
    extra = {n: "Only the exponential mechanism takes it." for n in ("statistic", "q")}
    refused = {n: m for n, m in extra.items() if attrs.get(n) is not None}
    if refused:
        return refused
    if attrs["mechanism"] == "laplace":
        errors = {n: "Not used by the laplace mechanism." for n in ("rho", "delta") if has[n]}
        if not has["epsilon"]:
            errors["epsilon"] = "Required for the laplace mechanism."
        return errors
    if has["rho"] == has["epsilon"]:
        return {"rho": "Give either rho, or epsilon and delta, for the gaussian mechanism."}
    if has["rho"] and has["delta"]:
        return {"delta": "Not used with rho."}
    if has["epsilon"] and not has["delta"]:
        return {"delta": "Required with epsilon for gaussian."}
    return {}


def _releasable(question: Question) -> bool:
    """Its kind says (a number question needs both bounds declared)."""
    return kind_of(question).releasable(question)


def _group_by(by_key: Mapping[str, Question], key: str) -> str:
    """The ``group_by`` key: "" for none, else a category question of the survey."""
    if not key:
        return ""
    question = by_key.get(key)
    if question is None:
        raise serializers.ValidationError({"group_by": f"Unknown question {key!r}."})
    if not kind_of(question).release_groups:
        message = f"{key!r} is not a category question; only category questions can group."
        raise serializers.ValidationError({"group_by": message})
    return key


def _listed_problem(by_key: Mapping[str, Question], keys: Sequence[str], group_by: str) -> str:
    """Why an explicit list of question keys cannot be released ("" when it can)."""
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        return f"Unknown question(s): {', '.join(unknown)}."
    if len(set(keys)) != len(keys):
        return "Each question may be listed once."
    unbounded = [k for k in keys if not _releasable(by_key[k])]
    if unbounded:
        return f"Number questions need design-time bounds: {', '.join(unbounded)}."
    if group_by and group_by in keys:
        return "The group_by question cannot also be released within its own groups."
    return ""


def _selection_problem(by_key: Mapping[str, Question], keys: Sequence[str], wants: str) -> str:
    """Why listed questions cannot give the statistic ("" when they can)."""
    wrong = [k for k in keys if kind_of(by_key[k]).release_selection != wants]
    if not wrong:
        return ""
    if wants == "quantile":
        return f"A median or quantile needs number questions: {', '.join(wrong)}."
    return (
        "A mode needs category questions or choice questions with the k-ary design (an OUE "
        f"question has no mode release): {', '.join(wrong)}."
    )


def released_keys(
    questions: Sequence[Question],
    keys: Sequence[str] | None,
    group_by: str,
    selection: str = "",
) -> tuple[str, ...]:
    """The released keys in survey order. Default: every releasable question (yes/no, choice,
    category and bounded number) except the ``group_by`` one; with a ``selection`` ("quantile"
    or "mode", issue 30) only the questions whose kind takes it."""
    by_key = {q.key: q for q in questions}
    if keys is not None:
        problem = _listed_problem(by_key, keys, group_by)
        if not problem and selection:
            problem = _selection_problem(by_key, keys, selection)
        if problem:
            raise serializers.ValidationError({"questions": problem})

    def default(q: Question) -> bool:
        if selection and kind_of(q).release_selection != selection:
            return False
        return _releasable(q) and q.key != group_by

    wanted = set(keys) if keys is not None else None
    chosen = tuple(
        q.key for q in questions if (q.key in wanted if wanted is not None else default(q))
    )
    if not chosen:
        raise serializers.ValidationError({"questions": "There is no question to release."})
    return chosen


class ReleaseRequestSerializer(serializers.Serializer):
    mechanism = serializers.ChoiceField(
        choices=MECHANISMS,
        error_messages={"invalid_choice": f"Must be one of: {', '.join(MECHANISMS)}."},
    )
    epsilon = ParameterField("epsilon", help_text="ε (laplace, or gaussian with delta).")
    delta = ParameterField("delta", help_text="δ, gaussian with epsilon.")
    rho = ParameterField("rho", help_text="ρ (zCDP), gaussian only.")
    questions = serializers.ListField(
        child=StrictCharField(),
        required=False,
        allow_null=True,
        error_messages={"not_a_list": "Must be a list of question keys."},
        help_text=(
            "Question keys to release. Default: every question of the survey (yes/no, choice, "
            "category and number) except the group_by question. A number question releases a "
            "noisy sum and a noisy count (and their mean) and counts as two contributions."
        ),
    )
    group_by = StrictCharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        error_messages={"invalid": "Must be a question key."},
        help_text="A category question: every result is also given per option.",
    )
    statistic = serializers.ChoiceField(
        choices=tuple(STATISTICS),
        required=False,
        allow_null=True,
        error_messages={"invalid_choice": f"Must be one of: {', '.join(STATISTICS)}."},
        help_text="exponential: median or quantile (number questions), mode (category/choice).",
    )
    q = StrictFloatField(
        required=False,
        allow_null=True,
        exclusive_min=0.0,
        exclusive_max=1.0,
        error_messages={
            "invalid": "Must be a number strictly between 0 and 1.",
            "exclusive_min": "Must be a number strictly between 0 and 1.",
            "exclusive_max": "Must be a number strictly between 0 and 1.",
        },
        help_text="The quantile's q, strictly between 0 and 1 (statistic quantile only).",
    )
    request_id = RequestIdField(
        required=False,
        allow_null=True,
        max_length=100,
        error_messages={
            "blank": "Must be 1 to 100 characters.",
            "max_length": "Must be 1 to 100 characters.",
            "invalid": "Must be a string.",
        },
        help_text="Idempotency key: a repeat costs nothing.",
    )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, Mapping) else []
        message = f"Unknown field(s): {', '.join(map(str, unknown))}."
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                before = exc.detail.get(NON_FIELD, [])
                before = before if isinstance(before, list) else [before]
                exc.detail[NON_FIELD] = [*before, ErrorDetail(message, code="invalid")]
            raise
        if unknown:
            raise serializers.ValidationError({NON_FIELD: [message]})
        return value

    def validate(self, attrs: dict[str, Any]) -> ReleaseSpec:
        errors: dict[str, Any] = _mechanism_rules(attrs)
        questions: Sequence[Question] = self.context["questions"]
        try:
            group_by = _group_by({q.key: q for q in questions}, attrs.get("group_by") or "")
            selection = STATISTICS.get(attrs.get("statistic") or "", "")
            if attrs["mechanism"] != "exponential":
                selection = ""
            keys = released_keys(questions, attrs.get("questions"), group_by, selection)
        except serializers.ValidationError as exc:  # raised with a dict {field: messages}
            detail = exc.detail
            errors.update(detail if isinstance(detail, dict) else {NON_FIELD: detail})
        if errors:
            raise serializers.ValidationError(errors)
        return ReleaseSpec(
            mechanism=attrs["mechanism"],
            questions=keys,
            epsilon=attrs.get("epsilon"),
            delta=attrs.get("delta"),
            rho=attrs.get("rho"),
            group_by=group_by,
            request_id=attrs.get("request_id"),
            statistic=attrs.get("statistic") or "",
            q=attrs.get("q"),
        )


def release_spec(*, questions: Sequence[Question], data: Any) -> ReleaseSpec:
    """A release (or preview) body, checked against the survey's questions (``InvalidInput``)."""
    return validate_input(ReleaseRequestSerializer, data, ReleaseSpec, questions=questions)
