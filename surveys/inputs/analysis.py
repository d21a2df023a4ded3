"""Input serializers of the analysis endpoints (docs/analysis.md): the regression query
(``GET …/regression/`` and the dashboard's regression panel) and the power body
(``POST /api/v1/designs/power/``). Each gives a frozen spec of :mod:`surveys.definitions.specs`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from deniable.errors import refuse_repeated
from deniable.input_fields import StrictFloatField, StrictIntegerField
from deniable.inputs import validate_input
from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN
from surveys.analysis.confidence import CONFIDENCE_MESSAGE, confidence_or_none
from surveys.definitions.specs import (
    PowerRequest,
    RecommendRequest,
    RegressionPowerRequest,
    RegressionQuery,
)
from surveys.inputs.previews import DesignFieldsSerializer
from surveys.kinds import stored_kind_choices
from surveys.kinds._definitions import definition_kind, randomized_stored_kinds

MAX_PREDICTORS = 12
#: ``family`` of ``GET …/regression/`` (docs/analysis.md): the outcome's model.
REGRESSION_FAMILIES = ("logistic", "linear")
MAX_N = 10**9
PROBABILITY_MESSAGE = "Must lie strictly between 0 and 1."
#: A power test's significance level: 1 − a confidence level (surveys/analysis/confidence.py).
ALPHA_MIN = 1.0 - CONFIDENCE_MAX
ALPHA_MAX = 1.0 - CONFIDENCE_MIN
ALPHA_MESSAGE = (
    f"A number from {ALPHA_MIN:.0e} to {ALPHA_MAX!r}, such as 0.05: outside that range no test "
    "can be computed."
)


class RegressionQuerySerializer(serializers.Serializer):
    """Query parameters are strings: ``predictors`` comma-separated, ``confidence`` a number."""

    outcome = serializers.CharField(max_length=64, help_text="A yes_no question's key.")
    predictors = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Comma-separated keys."
    )
    confidence = serializers.CharField(required=False, default="0.95")
    family = serializers.CharField(
        required=False,
        default="logistic",
        help_text="logistic (a randomized yes/no outcome) or linear (a number outcome).",
    )

    def validate_family(self, value: str) -> str:
        if value not in REGRESSION_FAMILIES:
            raise serializers.ValidationError(f"One of: {', '.join(REGRESSION_FAMILIES)}.")
        return value

    def validate_predictors(self, value: str) -> tuple[str, ...]:
        keys = tuple(item.strip() for item in value.split(",") if item.strip())
        if len(keys) > MAX_PREDICTORS:
            raise serializers.ValidationError(f"At most {MAX_PREDICTORS} predictors.")
        if len(set(keys)) != len(keys):
            raise serializers.ValidationError("A predictor is listed twice.")
        return keys

    def validate_confidence(self, value: str) -> float:
        confidence = confidence_or_none(value)
        if confidence is None:
            raise serializers.ValidationError(CONFIDENCE_MESSAGE)
        return confidence

    def validate(self, attrs: dict[str, Any]) -> RegressionQuery:
        return RegressionQuery(
            outcome=attrs["outcome"],
            predictors=attrs["predictors"],
            confidence=attrs["confidence"],
            family=attrs["family"],
        )


def regression_query(data: Any) -> RegressionQuery:
    """A regression query (``request.query_params`` or a plain mapping), validated (raises
    ``InvalidInput`` naming the field)."""
    fields = ("outcome", "predictors", "confidence", "family")
    refuse_repeated(data, fields)
    plain = {name: data[name] for name in fields if data.get(name) is not None}
    return validate_input(RegressionQuerySerializer, plain, RegressionQuery)


def _probability(**kwargs: Any) -> StrictFloatField:
    return StrictFloatField(min_value=0.0, max_value=1.0, **kwargs)


def _open_probability(**kwargs: Any) -> StrictFloatField:
    return StrictFloatField(
        exclusive_min=0.0,
        exclusive_max=1.0,
        error_messages={"exclusive_min": PROBABILITY_MESSAGE, "exclusive_max": PROBABILITY_MESSAGE},
        **kwargs,
    )


#: The power calculator's kinds (a multi question's options are yes/no: use yes_no per option).
POWER_KINDS = tuple(k for k in stored_kind_choices() if definition_kind(k).power_planning)


class PowerRequestSerializer(DesignFieldsSerializer):
    kind = serializers.ChoiceField(choices=list(POWER_KINDS), default=POWER_KINDS[0])
    test = serializers.ChoiceField(choices=["one_sample", "two_sample"])
    pi0 = _probability(help_text="Group A's share, or the value tested against.")
    pi1 = _probability(help_text="Group B's share, or the true share.")
    # A test at level alpha needs the normal quantile at 1 − alpha/2, which rounds to 1 (no
    # quantile) for an alpha below ~2e-16: the same bounds as a confidence level's complement.
    alpha = StrictFloatField(
        required=False,
        default=0.05,
        min_value=ALPHA_MIN,
        max_value=ALPHA_MAX,
        error_messages={"min_value": ALPHA_MESSAGE, "max_value": ALPHA_MESSAGE},
    )
    power = _open_probability(required=False, allow_null=True, default=None)
    n = StrictIntegerField(required=False, allow_null=True, default=None, min_value=1,
                           max_value=MAX_N)  # fmt: skip
    method = serializers.ChoiceField(
        choices=["normal", "exact"],
        default="normal",
        help_text="normal: the normal approximation; exact: binomial report counts.",
    )

    def validate(self, attrs: dict[str, Any]) -> PowerRequest:
        kind, k, target = attrs["kind"], attrs.get("k"), attrs["power"]
        if attrs.get("options"):
            k = len(attrs["options"])
        with_k = definition_kind(kind).has_options  # a k-ary design
        if with_k and k is None:
            raise serializers.ValidationError(
                {"k": "A choice design needs k ≥ 2 (or its options)."}
            )
        if (target is None) == (attrs["n"] is None):
            raise serializers.ValidationError(
                {"power": "Give exactly one of power (→ n) and n (→ power)."}
            )
        if target is not None and attrs["pi0"] == attrs["pi1"]:
            raise serializers.ValidationError(
                {"pi1": "Must differ from pi0 to compute a sample size."}
            )
        if target is not None and target <= attrs["alpha"] / 2.0:
            raise serializers.ValidationError(
                {"power": "Must exceed alpha/2 (power at no effect)."}
            )
        return PowerRequest(
            kind=kind,
            test=attrs["test"],
            design=attrs.get("design"),
            k=k if with_k else None,
            pi0=attrs["pi0"],
            pi1=attrs["pi1"],
            alpha=attrs["alpha"],
            power=target,
            n=attrs["n"],
            method=attrs["method"],
        )


def power_request(data: Any) -> PowerRequest:
    """A power body, validated (raises ``InvalidInput`` naming the field)."""
    return validate_input(PowerRequestSerializer, data, PowerRequest)


#: The kinds whose designs randomize one answer among k options (choice): what the recommender
#: compares.
OPTIONS_KINDS = tuple(
    k for k in randomized_stored_kinds() if definition_kind(k).design_shape == "options"
)
#: Largest local ε a question may have (dpcore.local.browser.MAX_LOCAL_EPSILON).
MAX_EPSILON = 10.0
MAX_OPTIONS = 10_000


class RecommendRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(OPTIONS_KINDS), help_text="A choice question.")
    options = StrictIntegerField(min_value=2, max_value=MAX_OPTIONS, help_text="k, its options.")
    epsilon = StrictFloatField(
        exclusive_min=0.0,
        max_value=MAX_EPSILON,
        error_messages={"exclusive_min": "Must be > 0."},
        help_text="The question's local ε.",
    )
    n = StrictIntegerField(min_value=1, max_value=MAX_N, help_text="Planned respondents.")
    confidence = StrictFloatField(
        required=False,
        default=0.95,
        min_value=CONFIDENCE_MIN,
        max_value=CONFIDENCE_MAX,
        error_messages={"min_value": CONFIDENCE_MESSAGE, "max_value": CONFIDENCE_MESSAGE},
    )

    def validate(self, attrs: dict[str, Any]) -> RecommendRequest:
        return RecommendRequest(**attrs)


def recommend_request(data: Any) -> RecommendRequest:
    """A recommend body, validated (raises ``InvalidInput`` naming the field)."""
    return validate_input(RecommendRequestSerializer, data, RecommendRequest)


class EffectSerializer(serializers.Serializer):
    odds_ratio = StrictFloatField(
        exclusive_min=0.0,
        max_value=1e6,
        help_text="The odds ratio of the trait between the predictor's two values (≠ 1 for n).",
    )
    predictor = serializers.ChoiceField(
        choices=["binary", "continuous"],
        default="binary",
        help_text="binary (give predictor_share) or continuous (standard normal; OR per SD).",
    )
    predictor_share = _open_probability(
        required=False,
        allow_null=True,
        default=None,
        help_text="binary: the share of respondents with the value 1.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        binary = attrs["predictor"] == "binary"
        if binary and attrs["predictor_share"] is None:
            raise serializers.ValidationError(
                {"predictor_share": "Required for a binary predictor."}
            )
        if not binary and attrs["predictor_share"] is not None:
            raise serializers.ValidationError(
                {"predictor_share": "Only for a binary predictor (a continuous one is per SD)."}
            )
        return attrs


class RegressionPowerRequestSerializer(serializers.Serializer):
    design = serializers.JSONField(required=False, allow_null=True)
    pi0 = _open_probability(help_text="The trait's prevalence where the predictor is 0.")
    effect = EffectSerializer()
    alpha = StrictFloatField(
        required=False,
        default=0.05,
        min_value=ALPHA_MIN,
        max_value=ALPHA_MAX,
        error_messages={"min_value": ALPHA_MESSAGE, "max_value": ALPHA_MESSAGE},
    )
    power = _open_probability(required=False, allow_null=True, default=None)
    n = StrictIntegerField(required=False, allow_null=True, default=None, min_value=1,
                           max_value=MAX_N)  # fmt: skip

    def validate(self, attrs: dict[str, Any]) -> RegressionPowerRequest:
        target, effect = attrs["power"], attrs["effect"]
        if (target is None) == (attrs["n"] is None):
            raise serializers.ValidationError(
                {"power": "Give exactly one of power (→ n) and n (→ power)."}
            )
        if target is not None and effect["odds_ratio"] == 1.0:
            raise serializers.ValidationError(
                {"effect.odds_ratio": "Must differ from 1 to compute a sample size."}
            )
        if target is not None and target <= attrs["alpha"] / 2.0:
            raise serializers.ValidationError(
                {"power": "Must exceed alpha/2 (power at no effect)."}
            )
        return RegressionPowerRequest(
            design=attrs.get("design"),
            pi0=attrs["pi0"],
            odds_ratio=effect["odds_ratio"],
            predictor=effect["predictor"],
            predictor_share=effect["predictor_share"],
            alpha=attrs["alpha"],
            power=target,
            n=attrs["n"],
        )


def regression_power_request(data: Any) -> RegressionPowerRequest:
    """A regression power body, validated (raises ``InvalidInput`` naming the field)."""
    return validate_input(RegressionPowerRequestSerializer, data, RegressionPowerRequest)
