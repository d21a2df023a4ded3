"""Optimized unary encoding (Wang et al. 2017) for a question of k options: each option's bit is
reported, the true one kept with ½, the others set with ``1/(e^ε + 1)``. Its design type,
estimator and browser plan: :mod:`dpcore.local.oue`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dpcore.local import oue
from dpcore.local.designs._registry import DesignEntry, Param, register
from dpcore.local.designs.k_rr import DEFAULT_CHOICE_EPSILON

__all__ = ["ENTRY"]


def _build(spec: Mapping[str, Any], k: int | None) -> oue.OUEDesign:
    from dpcore.errors import DesignError

    if k is None:
        raise DesignError("k", "OUE needs the number of options k")
    return oue.oue(k, spec["epsilon"])


ENTRY: Final = register(
    DesignEntry(
        name=oue.NAME,
        title="Optimized unary encoding (many options)",
        order=65,
        params=(
            Param(
                "epsilon",
                "positive",
                "Local ε for this question (OUE)",
                "Local ε of optimized unary encoding: each option's bit is reported, the true "
                "one kept with ½, the others set with 1/(e^ε + 1). Better than k-RR when "
                "k > 3e^ε + 2.",
                maximum=10.0,
            ),
        ),
        serves=frozenset({"options"}),
        starting={"name": oue.NAME, "epsilon": DEFAULT_CHOICE_EPSILON},
        build=_build,
    )
)
