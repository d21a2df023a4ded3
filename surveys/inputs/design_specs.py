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
from surveys.definitions import question_designs as designs
from surveys.models import Question

NOT_PRIVATE = (
    "This design is not differentially private (ε = ∞): some reported answer reveals the true "
    "one. Give every answer a non-zero chance of being reported."
)
#: The design names each randomized kind accepts (registry order;
# ``surveys.definitions.question_designs``).
DESIGN_NAMES: dict[str, tuple[str, ...]] = {
    kind: designs.design_names(kind) for kind in designs.RANDOMIZED_KINDS
}
_NOT_PER_OPTION = [
    n for n in DESIGN_NAMES[Question.Kind.YES_NO] if n not in designs.MULTI_DESIGN_NAMES
]
MULTI_REFUSED = (
    "A multi question randomizes each option with a coin or spinner: use one of "
    f"{', '.join(designs.MULTI_DESIGN_NAMES)}. {' and '.join(_NOT_PER_OPTION)} (a second "
    "statement, or a group drawn per report) are not available for multi questions."
)


# --- designs ------------------------------------------------------------------------------------

#: Each design's parameters as the OpenAPI schema states them (from ``dpcore.local.designs``).
DESIGN_SCHEMAS: dict[str, dict[str, Any]] = {
    entry.name: {p.name: p.schema() for p in entry.params}
    for kind in designs.RANDOMIZED_KINDS
    for entry in designs.app_designs(kind)
}


def design_help_text() -> str:
    """The ``design`` field's help: each kind's designs and their parameters, from the registry."""
    parts = []
    for kind in designs.RANDOMIZED_KINDS:
        shapes = [
            '{"name":"%s"%s}' % (e.name, "".join(f',"{p.name}"' for p in e.params))  # noqa: UP031
            for e in designs.app_designs(kind)
        ]
        parts.append(f"{kind}: {' or '.join(shapes)}")
    return (
        "; ".join(parts) + ". Defaults: yes_no and multi the coin (½, ¼, ¼), choice ε = ln 3. "
        "multi: one design applied to each option independently, ε summed over the options. "
        "Designs with ε = ∞ or above the local ε cap, or that the browser cannot run exactly, "
        "are refused."
    )


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
