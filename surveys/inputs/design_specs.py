"""A question's design in the input serializers: the names each kind accepts, their parameters as
the OpenAPI schema states them, and :func:`design_spec`, the one validator of a design (rules in
:mod:`dpcore.local`; one-sided designs and designs the browser cannot run exactly are refused).

Errors are keyed ``design`` or ``design.<parameter>`` (``design.groups[1].p_no``…).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from dpcore import local as rr
from dpcore.local import browser as rr_browser
from dpcore.local.designs import MAX_INNOCUOUS_TEXT
from surveys import designs
from surveys.models import Question

NOT_PRIVATE = (
    "This design is not differentially private (ε = ∞): some reported answer reveals the true "
    "one. Give every answer a non-zero chance of being reported."
)
DESIGN_NAMES: dict[str, tuple[str, ...]] = {
    Question.Kind.YES_NO: (
        "forced_response",
        "warner",
        "unrelated_question",
        "two_probability",
        "crosswise",
        "cheater_detection",
    ),
    Question.Kind.CHOICE: ("k_rr",),
    # One shared yes/no design, applied to every option independently (docs/api.md#multi).
    Question.Kind.MULTI: designs.MULTI_DESIGN_NAMES,
}
MULTI_REFUSED = (
    "A multi question randomizes each option with a coin or spinner: use one of "
    f"{', '.join(designs.MULTI_DESIGN_NAMES)}. crosswise (a second statement) and "
    "cheater_detection (a group drawn per report) are not available for multi questions."
)


# --- designs ------------------------------------------------------------------------------------

_PROBABILITY = {"type": "number", "minimum": 0, "maximum": 1}
DESIGN_SCHEMAS: dict[str, dict[str, Any]] = {
    "forced_response": {
        "p_truth": {**_PROBABILITY, "description": "P(answer truthfully); default ½."},
        "p_yes": {**_PROBABILITY, "description": "P(forced yes); default ¼."},
        "p_no": {**_PROBABILITY, "description": "P(forced no); default ¼. The three sum to 1."},
    },
    "warner": {"p": {**_PROBABILITY, "description": "P(the sensitive statement); not ½."}},
    "unrelated_question": {
        "p": {**_PROBABILITY, "description": "P(the sensitive question)."},
        "innocuous_prevalence": {**_PROBABILITY, "description": "π of the innocuous question."},
    },
    "two_probability": {
        "p_yes_if_trait": {**_PROBABILITY, "description": "P(yes | trait) = a; above b."},
        "p_yes_if_not": {**_PROBABILITY, "description": "P(yes | no trait) = b; below a."},
    },
    "crosswise": {
        "innocuous_prevalence": {
            **_PROBABILITY,
            "description": "Known prevalence p of the innocuous statement; not 0, ½ or 1.",
        },
        "innocuous_text": {
            "type": "string",
            "maxLength": MAX_INNOCUOUS_TEXT,
            "description": "The innocuous statement respondents read (required).",
        },
    },
    "cheater_detection": {
        "groups": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "description": "Two groups (drawn ½ each), each {p_yes, p_no}: forced yes/no > 0, "
            "sum < 1; the two must differ. Reports are {group, report}.",
            "items": {
                "type": "object",
                "properties": {"p_yes": _PROBABILITY, "p_no": _PROBABILITY},
                "required": ["p_yes", "p_no"],
                "additionalProperties": False,
            },
        }
    },
    "k_rr": {
        "epsilon": {
            "type": "number",
            "minimum": 0,
            "exclusiveMinimum": True,
            "maximum": rr_browser.MAX_LOCAL_EPSILON,
            "description": "Local ε of k-ary randomized response; default ln 3.",
        }
    },
}


class DesignField(serializers.JSONField):
    """A question's design: any JSON here, validated by :func:`design_spec` (``dpcore.local``);
    its shapes and parameter ranges are stated in the schema by :class:`DesignFieldExtension`."""


class DesignFieldExtension(OpenApiSerializerFieldExtension):
    target_class = DesignField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        shapes = [
            {
                "type": "object",
                "properties": {"name": {"type": "string", "enum": [name]}, **params},
                "required": ["name"],
                "additionalProperties": False,
            }
            for name, params in DESIGN_SCHEMAS.items()
        ]
        return {"oneOf": shapes, "nullable": True}


def design_spec(kind: str, raw: Any, k: int | None) -> dict[str, Any]:
    """The canonical spec of a valid, private design the browser can run exactly.

    Raises ``serializers.ValidationError`` keyed ``design`` or ``design.<parameter>``.
    """
    if raw is None:
        raw = designs.default_design_spec(kind)
    if not isinstance(raw, Mapping):
        raise serializers.ValidationError({"design": "The design must be an object with a 'name'."})
    expected = DESIGN_NAMES[kind]
    if raw.get("name") not in expected:
        message = f"For a {kind} question use one of: {', '.join(expected)}."
        if kind == Question.Kind.MULTI and raw.get("name") in DESIGN_NAMES[Question.Kind.YES_NO]:
            message = MULTI_REFUSED
        raise serializers.ValidationError({"design.name": message})
    try:
        design = designs.design_for(kind, raw, k=k)
        if not math.isfinite(float(design.epsilon)) or not getattr(design, "is_private", True):
            raise serializers.ValidationError({"design": NOT_PRIVATE})
        # The local-ε cap, and the page's integer thresholds: a design the respondent's browser
        # cannot run exactly is refused here, never approximated there (dpcore.local.browser).
        designs.check_runnable(design)
    except rr.DesignError as exc:
        param = getattr(exc, "field", "") or ""
        message = getattr(exc, "message", None) or str(exc)
        key = f"design.{param}" if param else "design"
        raise serializers.ValidationError({key: message}) from None
    return dict(design.to_spec())
