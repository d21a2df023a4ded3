"""Randomized-response designs: one module per design, each registered with its parameter schema.

Pure and typed: numpy and the standard library only, never Django (a test imports this package
with no Django settings and checks ``django`` stays out of ``sys.modules``). Formulas:
docs/formulas.md#local.

**Binary designs.** Every binary design reports "yes" with probability ``λ = c·π + d`` where π is
the prevalence of the sensitive trait, so ``P(yes | trait) = c + d`` and ``P(yes | no trait) = d``:

=================== ================================ =========== ================
design              parameters                       c           d
=================== ================================ =========== ================
forced response     p_truth q, p_yes f₁, p_no f₀     q           f₁
Warner (mirrored)   p                                2p − 1      1 − p
unrelated question  p, innocuous prevalence u        p           (1 − p)·u
two probabilities   P(yes|trait) a, P(yes|not) b     a − b       b
crosswise           innocuous prevalence p           2p − 1      1 − p
=================== ================================ =========== ================

Crosswise: no randomizer, the "yes" report is "same"; the only design whose c may be negative
(p < ½). **k options:** k-RR keeps the true option with ``p = e^ε/(e^ε + k − 1)``, else reports one
of the others uniformly. **Two groups** (reports ``{group, report}``): cheating detection
(:mod:`dpcore.local.cheater`) and the unrelated question with an unknown innocuous prevalence
(:mod:`~dpcore.local.designs.unrelated_question_unknown`). Sources of every design (Warner 1965,
Boruch 1971, Greenberg et al. 1969, Kuk 1990, Yu, Tian & Tang 2008, Wang et al. 2017) and the
optimality limit (Kairouz, Oh & Viswanath 2016): docs/formulas.md#local.

**Adding a design** is adding a module here that calls :func:`register` (docs/architecture.md,
"How to add a design"): the API schema, the input validation and the builder read the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dpcore.errors import DesignError
from dpcore.local.designs._binary import MAX_INNOCUOUS_TEXT, SUM_TOLERANCE, BinaryDesign
from dpcore.local.designs._registry import (
    EACH_OPTION,
    BrowserHooks,
    DesignEntry,
    Param,
    Serves,
    design_named,
    register,
    registered,
)
from dpcore.local.designs.crosswise import crosswise as crosswise
from dpcore.local.designs.forced_response import (
    DEFAULT_YES_NO_SPEC,
    default_yes_no_spec,
    optimal_forced_response,
)
from dpcore.local.designs.forced_response import (
    forced_response as forced_response,
)
from dpcore.local.designs.k_rr import KRRDesign
from dpcore.local.designs.k_rr import k_rr as k_rr
from dpcore.local.designs.two_probability import two_probability as two_probability
from dpcore.local.designs.unrelated_question import unrelated_question as unrelated_question
from dpcore.local.designs.warner import warner as warner
from dpcore.validation import design_number as _number

__all__ = [
    "BINARY_DESIGN_NAMES",
    "DEFAULT_YES_NO_SPEC",
    "DESIGN_NAMES",
    "EACH_OPTION",
    "MAX_INNOCUOUS_TEXT",
    "SUM_TOLERANCE",
    "BinaryDesign",
    "BrowserHooks",
    "Design",
    "DesignEntry",
    "DesignError",
    "KRRDesign",
    "Param",
    "Serves",
    "build_design",
    "default_yes_no_spec",
    "design_from_spec",
    "design_named",
    "optimal_forced_response",
    "register",
    "registered",
]

Design = BinaryDesign | KRRDesign

#: The one-report yes/no designs, in registry order.
BINARY_DESIGN_NAMES: Final = tuple(e.name for e in registered() if e.binary)
#: The designs :func:`design_from_spec` builds: one report (binary) or k options (k-RR).
DESIGN_NAMES: Final = tuple(e.name for e in registered() if e.binary or "options" in e.serves)


def design_from_spec(spec: Mapping[str, Any], *, k: int | None = None) -> BinaryDesign | KRRDesign:
    """Build a one-report design from its JSON spec; ``spec["name"]`` selects the design.

    Specs: ``{"name": <design>, <its parameters>}``, the parameters of each design listed by
    :func:`registered`; k-RR's ``k`` is the question's option count,
    passed as the keyword (a ``"k"`` key in the spec is accepted if it agrees). Unknown names,
    missing, unexpected, non-numeric, NaN or infinite parameters raise :class:`DesignError`
    naming the field.
    """
    entry = design_named(_spec_name(spec, DESIGN_NAMES))
    fields, texts = entry.numbers, entry.texts
    allowed = {"name", *fields, *texts, *entry.extra_keys}
    unexpected = sorted(str(key) for key in spec if key not in allowed)
    if unexpected:
        raise DesignError(unexpected[0], f"unexpected parameter for design {entry.name!r}")
    # Text fields are required too: a crosswise question needs the statement respondents read.
    for field_name in (*fields, *texts):
        if field_name not in spec:
            needs = ", ".join((*fields, *texts))
            raise DesignError(field_name, f"missing (design {entry.name!r} needs {needs})")
    values = {field_name: _number(field_name, spec[field_name]) for field_name in fields}
    built: BinaryDesign | KRRDesign = entry.build({**spec, **values}, k)
    return built


def build_design(spec: Mapping[str, Any], *, k: int | None = None) -> Any:
    """Build any registered design (two-group designs included) from its spec; raises
    :class:`DesignError` naming the field."""
    name = _spec_name(spec, tuple(e.name for e in registered()))
    if name in DESIGN_NAMES:
        return design_from_spec(spec, k=k)
    return design_named(name).build(spec, k)


def _spec_name(spec: Mapping[str, Any], names: tuple[str, ...]) -> str:
    """The spec's design name, checked: a mapping whose ``name`` is one of ``names``."""
    if not isinstance(spec, Mapping):
        raise DesignError("spec", f"must be a mapping with a 'name' (got {type(spec).__name__})")
    name = spec.get("name")
    if name is None:
        raise DesignError("name", f"missing; expected one of {', '.join(names)}")
    if not isinstance(name, str) or name not in names:
        raise DesignError("name", f"unknown design {name!r}; expected one of {', '.join(names)}")
    return name
