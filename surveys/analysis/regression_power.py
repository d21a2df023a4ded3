"""``POST /api/v1/designs/power/regression/`` (docs/analysis.md#regression-power): the validated
request (``surveys.inputs.regression_power_request``) → ``dpcore.local.regression_power``.

The answer is the missing figure (``n`` or ``power``) with ``alpha`` and the ``method`` used, and
the same figure for the question asked directly (``n_direct`` or ``power_direct``: c = 1, d = 0,
the survey builder's comparison); the view returns the request object with them filled in. A
design the request's parameters do not make is a 400 naming its field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deniable.errors import InvalidInput
from dpcore.errors import ArgumentError, DesignError
from dpcore.local import regression_power
from surveys.definitions import question_designs as designs
from surveys.definitions.specs import RegressionPowerRequest
from surveys.kinds._definitions import definition_kind
from surveys.models import Question

#: The question kind whose designs the regression outcome uses.
OUTCOME_KIND = Question.Kind.YES_NO
METHOD = "wald_expected_information"
#: The report model of a question asked directly: P(yes) = π.
DIRECT = {"c": 1.0, "d": 0.0}
#: dpcore's argument names → the request's fields.
FIELDS = {"odds_ratio": "effect.odds_ratio", "predictor_share": "effect.predictor_share"}


def _reported(c: float, d: float) -> tuple[float, float]:
    """(c, d) with c > 0, as dpcore.local.regression_power takes them: a design with c < 0
    (Warner, crosswise below ½) through its complement, P(no) = (−c)·μ + (1 − d). The
    information is the same — it depends on (c, d) only through c² and p(1 − p)
    (docs/formulas.md#regression-power)."""
    return (-c, 1.0 - d) if c < 0 else (c, d)


def regression_design_names() -> list[str]:
    """The yes/no designs the regression can plan (one report model P(yes) = c·π + d), for the
    builder: it asks the API only for these (static/js/power/regression.js)."""
    return [
        name
        for name in designs.design_names(OUTCOME_KIND)
        if definition_kind(OUTCOME_KIND, {"name": name}).linear_model
    ]


def _design(spec: Any) -> Any:
    try:
        if spec is not None and not isinstance(spec, Mapping):
            raise DesignError("spec", "must be an object with a 'name'")
        design = designs.design_for(OUTCOME_KIND, spec)
    except DesignError as exc:
        field = {"spec": "design"}.get(exc.field, f"design.{exc.field}")
        raise InvalidInput.single(field, exc.message) from None
    if not definition_kind(OUTCOME_KIND, spec).linear_model:
        raise InvalidInput.single(
            "design.name", "The regression needs one report model P(yes) = c·π + d."
        )
    return design


def regression_power_answer(wanted: RegressionPowerRequest) -> dict[str, Any]:
    """``{"alpha", "method", "c", "d", "power" | "n", "power_direct" | "n_direct"}``
    (docs/formulas.md#regression-power)."""
    design = _design(wanted.design)
    c, d = _reported(float(design.c), float(design.d))
    figures: dict[str, Any] = {
        "c": c,
        "d": d,
        "pi0": wanted.pi0,
        "odds_ratio": wanted.odds_ratio,
        "share": wanted.predictor_share if wanted.predictor == "binary" else None,
        "alpha": wanted.alpha,
    }
    out: dict[str, Any] = {
        "alpha": wanted.alpha,
        "method": METHOD,
        "c": float(design.c),
        "d": float(design.d),
    }
    direct = {**figures, **DIRECT}
    try:
        if wanted.n is not None:
            out["power"] = regression_power.power(**figures, n=wanted.n)
            out["power_direct"] = regression_power.power(**direct, n=wanted.n)
            return out
        assert wanted.power is not None  # the serializer asks for exactly one of the two
        out["n"] = regression_power.sample_size(**figures, target=wanted.power)
        out["n_direct"] = regression_power.sample_size(**direct, target=wanted.power)
    except ArgumentError as exc:
        # Values the serializer's ranges allow but the model cannot answer (a μ at 0 or 1 in
        # floating point, an odds ratio at 1 within rounding): a 400 naming the field.
        raise InvalidInput.single(FIELDS.get(exc.field, exc.field), exc.message) from None
    return out
