"""Local differential privacy: randomized-response designs, estimates, intervals and planning.

The package's public names, gathered from its modules (:mod:`~dpcore.local.designs`,
:mod:`~dpcore.local.estimators`, :mod:`~dpcore.local.intervals`, :mod:`~dpcore.local.planning`;
the browser's integer thresholds are :mod:`dpcore.local.browser`). Formulas: docs/formulas.md#local.
"""

from __future__ import annotations

from dpcore.local.designs import (
    BINARY_DESIGN_NAMES,
    DEFAULT_YES_NO_SPEC,
    DESIGN_NAMES,
    SUM_TOLERANCE,
    BinaryDesign,
    Design,
    DesignError,
    KRRDesign,
    default_yes_no_spec,
    design_from_spec,
    optimal_forced_response,
)

# Each design's constructor, for callers writing ``rr.warner(0.75)``: re-exported explicitly
# (``x as x``) rather than listed in ``__all__`` by name, since a design is named in its own
# module only (docs/architecture.md, "How to add a design").
from dpcore.local.designs import crosswise as crosswise
from dpcore.local.designs import forced_response as forced_response
from dpcore.local.designs import k_rr as k_rr
from dpcore.local.designs import two_probability as two_probability
from dpcore.local.designs import unrelated_question as unrelated_question
from dpcore.local.designs import warner as warner
from dpcore.local.estimators import (
    BinaryEstimate,
    KRREstimate,
    OptionEstimate,
    estimate_binary,
    estimate_krr,
    project_to_simplex,
)
from dpcore.local.intervals import INTERVAL_KINDS, wilson_interval
from dpcore.local.planning import (
    binary_interval_table,
    deniability,
    efficiency,
    estimator_variance,
    exact_coverage,
    krr_deniability,
    krr_proportion_variance,
    krr_variance,
    planned_half_width,
    planned_half_width_direct,
    revealing_deniability,
    sample_size,
    sample_size_direct,
    variance_bound,
)
from dpcore.stats import z_value

__all__ = [
    "BINARY_DESIGN_NAMES",
    "DEFAULT_YES_NO_SPEC",
    "DESIGN_NAMES",
    "INTERVAL_KINDS",
    "SUM_TOLERANCE",
    "BinaryDesign",
    "BinaryEstimate",
    "Design",
    "DesignError",
    "KRRDesign",
    "KRREstimate",
    "OptionEstimate",
    "binary_interval_table",
    "default_yes_no_spec",
    "deniability",
    "design_from_spec",
    "efficiency",
    "estimate_binary",
    "estimate_krr",
    "estimator_variance",
    "exact_coverage",
    "krr_deniability",
    "krr_proportion_variance",
    "krr_variance",
    "optimal_forced_response",
    "planned_half_width",
    "planned_half_width_direct",
    "project_to_simplex",
    "revealing_deniability",
    "sample_size",
    "sample_size_direct",
    "variance_bound",
    "wilson_interval",
    "z_value",
]
