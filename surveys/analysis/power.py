"""``POST /api/v1/designs/power/`` (docs/analysis.md): the validated request
(``surveys.inputs.analysis.power_request``) → dpcore.local.power.

The answer holds the figures the request did not give: ``n`` or ``power``, with ``kind`` and
``alpha`` as used; the view returns the request object with them filled in. A design the
request's parameters do not make (``design.p`` out of range, …) is a 400 naming its field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deniable.errors import InvalidInput
from dpcore.errors import DesignError
from dpcore.local import power as power_math
from dpcore.local import power_exact
from surveys.definitions import question_designs as designs
from surveys.definitions.specs import PowerRequest
from surveys.kinds._definitions import definition_kind


def _design(wanted: PowerRequest) -> Any:
    spec = wanted.design
    try:
        if spec is not None and not isinstance(spec, Mapping):
            raise DesignError("spec", "must be an object with a 'name'")
        design = designs.design_for(wanted.kind, spec, k=wanted.k)
    except DesignError as exc:
        field = {"spec": "design"}.get(exc.field, f"design.{exc.field}")
        raise InvalidInput.single(field, exc.message) from None
    kind = definition_kind(wanted.kind, spec)
    if not kind.power_planning:
        # Two groups and a cheater share: its planning is per group (the builder's preview and
        # docs/formulas.md#cheater-detection), not this one-parameter power calculation.
        raise InvalidInput.single(
            "design.name", f"Power for {kind.name} is planned per group in the builder."
        )
    return design


def power_answer(wanted: PowerRequest) -> dict[str, Any]:
    """``{"kind", "alpha", "method", "power" | "n"}`` for a validated request: the power at
    ``n``, or the smallest ``n`` reaching ``power`` (docs/formulas.md#power). ``method`` exact:
    the binomial power (with ``power_normal`` beside it), or the smallest n from which the exact
    power stays ≥ the target up to ``search_bound`` (with ``n_normal``;
    docs/formulas.md#exact-power)."""
    design = _design(wanted)
    figures = {
        "test": wanted.test,
        "c": design.c,
        "d": design.d,
        "pi0": wanted.pi0,
        "pi1": wanted.pi1,
        "alpha": wanted.alpha,
    }
    out: dict[str, Any] = {"kind": wanted.kind, "alpha": wanted.alpha, "method": wanted.method}
    if wanted.n is not None:
        out["power"] = power_math.power(**figures, n=wanted.n)
        if wanted.method == "exact":
            out["power_normal"] = out["power"]
            out["power"] = power_exact.power(**figures, n=wanted.n)
        return out
    assert wanted.power is not None  # the serializer asks for exactly one of the two
    out["n"] = power_math.sample_size(**figures, target=wanted.power)
    if wanted.method == "exact":
        try:
            exact_n, bound = power_exact.sample_size(**figures, target=wanted.power)
        except ValueError:
            raise InvalidInput.single(
                "method",
                f"An exact sample size is searched up to n = {power_exact.SEARCH_LIMIT:,} "
                "(per group); this one is larger: use the normal method.",
            ) from None
        out |= {"n_normal": out["n"], "n": exact_n, "search_bound": bound}
    return out
