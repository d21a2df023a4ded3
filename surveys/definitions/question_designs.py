"""Glue between a stored :class:`~surveys.models.Question` and its ``dpcore.local`` design.

The question row keeps the design *spec* (a small JSON dict); everything derived from it — the
linear form ``λ = c·π + d``, the local ε, the k-RR keep probability — is computed here by
``dpcore.local`` so that there is exactly one implementation of the formulas
(docs/formulas.md#local).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from dpcore import local as rr
from dpcore.local import cheater as rr_cheater
from dpcore.local import designs as rr_designs
from dpcore.local.designs.k_rr import DEFAULT_CHOICE_EPSILON
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from surveys.kinds._definitions import definition_kind, preview_kind, randomized_stored_kinds
from surveys.kinds._design import (  # re-exported: the question's design and its ε
    MEMO_ATTRIBUTE,
    DesignMemo,
    LocalDesign,
    accounted_epsilon,
    check_runnable,
    design_for,
    design_memo,
    epsilon_local_total,
    is_cheater,
    is_grouped,
    is_multi,
    multi_epsilon,
    option_epsilon,
    question_browser_plan,
    question_design,
    question_epsilon,
    question_thresholds,
    report_arity,
)
from surveys.kinds.cheater_detection import CheaterDetectionKind
from surveys.kinds.multi import DESIGN_NAMES as MULTI_DESIGN_NAMES
from surveys.kinds.registry import kinds

CHEATER = CheaterDetectionKind.name
__all__ = [  # the names other modules import from here (re-exported from surveys.kinds._design)
    "CHEATER",
    "DEFAULT_CHOICE_EPSILON",
    "MEMO_ATTRIBUTE",
    "MULTI_DESIGN_NAMES",
    "DesignMemo",
    "LocalDesign",
    "accounted_epsilon",
    "check_runnable",
    "design_for",
    "design_memo",
    "epsilon_local_total",
    "is_cheater",
    "is_grouped",
    "is_multi",
    "multi_epsilon",
    "option_epsilon",
    "question_browser_plan",
    "question_design",
    "question_epsilon",
    "question_thresholds",
    "report_arity",
]


def __getattr__(name: str) -> tuple[str, ...]:
    """``RANDOMIZED_KINDS``: the stored kinds that carry a design (the kind registry's)."""
    if name == "RANDOMIZED_KINDS":
        return randomized_stored_kinds()
    raise AttributeError(name)


def default_design_spec(kind: str) -> dict[str, Any] | None:
    """The design used when a question of ``kind`` gives none (None for direct questions)."""
    try:
        return definition_kind(kind).default_design_spec()
    except LookupError:
        return None


def app_designs(kind: str) -> tuple[rr_designs.DesignEntry, ...]:
    """The registered designs a question of ``kind`` may use, in registry order. A design whose
    reports are ``{group, report}`` needs a question kind registered under its name (its tallies,
    estimates and page), so a design registered in ``dpcore`` alone is not offered yet."""
    shape = definition_kind(kind).design_shape if kind in randomized_stored_kinds() else None
    kind_names = {k.name for k in kinds()}
    return tuple(
        entry
        for entry in rr_designs.registered()
        if shape in entry.serves and (not entry.grouped or entry.name in kind_names)
    )


def design_names(kind: str) -> tuple[str, ...]:
    return tuple(entry.name for entry in app_designs(kind))


def starting_designs() -> dict[str, dict[str, Any]]:
    """Each offered design's starting spec (:func:`app_designs`), for the builder's data island
    (the browser has no copy of any design or probability). A design that shows an innocuous
    statement starts with the library's first (surveys.definitions.innocuous), and its prevalence
    if the design states one."""
    first = INNOCUOUS_STATEMENTS[0]
    out: dict[str, dict[str, Any]] = {}
    offered = {e.name for kind in randomized_stored_kinds() for e in app_designs(kind)}
    for entry in rr_designs.registered():
        if entry.name not in offered:
            continue  # registered in dpcore, but no question kind runs it yet
        spec = copy.deepcopy(dict(entry.starting))
        if "innocuous_text" in entry.texts:
            spec["innocuous_text"] = first["text"]
            if "innocuous_prevalence" in entry.numbers:
                spec["innocuous_prevalence"] = first["prevalence"]
        out[entry.name] = spec
    return out


def builder_designs() -> list[dict[str, Any]]:
    """Each design's parameter schema for the builder (names, types, labels, bounds, the question
    shapes it serves), so the page renders and collects parameters with no copy of their names."""
    served = {kind: set(design_names(kind)) for kind in randomized_stored_kinds()}
    described = [
        {**e.describe(), "kinds": [k for k in randomized_stored_kinds() if e.name in served[k]]}
        for e in rr_designs.registered()
    ]
    return [d for d in described if d["kinds"]]


def design_description(question: Any) -> dict[str, Any] | None:
    """The spec plus the derived parameters, for API output and export metadata.

    Binary designs add ``c`` and ``d`` (λ = c·π + d); k-RR adds ``k`` and its keep / other
    probabilities. Values are plain floats, so the dict is JSON-serializable.
    """
    design = question_design(question)
    if design is None:
        return None
    out: dict[str, Any] = dict(design.to_spec())
    if is_grouped(design):
        out["group_epsilons"] = [float(e) for e in design.group_epsilons]
    elif isinstance(design, rr.KRRDesign):
        out["k"] = int(design.k)
        out["keep_probability"] = float(design.keep_probability)
        out["other_probability"] = float(design.other_probability)
    else:
        out["c"] = float(design.c)
        out["d"] = float(design.d)
        if is_multi(question):
            # The shared design is applied to every option independently: one report each.
            out["applies_to"] = rr_designs.EACH_OPTION
            out["options"] = len(question.options or [])
            out["epsilon_per_option"] = option_epsilon(question)
    out["epsilon"] = question_epsilon(question)
    return out


def _cheater_preview(
    design: rr_cheater.CheaterDetectionDesign,
    planned_n: int,
    prior: float | None,
    confidence: float,
    half_width: float,
) -> dict[str, Any]:
    """The builder's preview of a cheating-detection design: ε (the larger group's) and each
    group's, the planned precision of π with ``planned_n/2`` per group, the respondents per group
    for ±``half_width`` (``dpcore.local.cheater``), and the deniability of a YES at the larger
    ratio ``max_i (1 − p_no_i)/p_yes_i``: ``r·prior/(r·prior + 1 − prior)``."""
    shown_prior = 0.1 if prior is None else prior
    ratio = max((1.0 - g.p_no) / g.p_yes for g in design.groups)
    per_group = rr_cheater.sample_size_per_group(
        design, half_width=half_width, honest_yes=prior, confidence=confidence
    )
    return {
        "epsilon": accounted_epsilon(design),
        "private": True,
        "design": dict(design.to_spec()),
        "group_epsilons": [float(e) for e in design.group_epsilons],
        "deniability": ratio * shown_prior / (ratio * shown_prior + 1.0 - shown_prior),
        "revealing_report": True,
        "revealing_deniability": ratio * shown_prior / (ratio * shown_prior + 1.0 - shown_prior),
        "prior": float(shown_prior),
        "planned_n": planned_n,
        "planned_n_per_group": planned_n // 2,
        "planned_half_width": rr_cheater.planned_half_width_per_group(
            design, n_per_group=max(1, planned_n // 2), honest_yes=prior, confidence=confidence
        ),
        "planned_half_width_direct": rr.planned_half_width_direct(
            n=planned_n, prior=prior, confidence=confidence
        ),
        "sample_size_per_group_for_5pp": per_group,
        "sample_size_for_5pp": 2 * per_group,
        "sample_size_direct_for_5pp": rr.sample_size_direct(
            half_width=half_width, prior=prior, confidence=confidence
        ),
    }


def design_preview(
    *,
    kind: str,
    spec: Mapping[str, Any] | None,
    k: int | None = None,
    planned_n: int = 1000,
    prior: float | None = None,
    confidence: float = 0.95,
    half_width: float = 0.05,
) -> dict[str, Any]:
    """ε, deniability and planned precision of a design, for the builder's live preview.

    Raises ``rr.DesignError`` for an invalid spec and ``ValueError`` for a bad prior/n; a
    one-sided design is *described* (``private: false``, ``epsilon: null``), not refused, so the
    builder can say why it will be refused at save time.
    """
    plain = preview_kind(kind, spec)
    design = design_for(kind, spec, k=None if plain.design_per_option else k)
    if design is None:
        kinds = ", ".join(randomized_stored_kinds())
        raise rr.DesignError("kind", f"only randomized kinds ({kinds}) have a design")
    if is_cheater(design):
        return _cheater_preview(design, planned_n, prior, confidence, half_width)
    selected = definition_kind(kind, spec)  # the design-selected kind, if any
    own = selected.design_preview(
        design, planned_n=planned_n, prior=prior, confidence=confidence, half_width=half_width
    )
    if own is not None:
        return {**own, **selected.design_notes()}
    if isinstance(design, rr.KRRDesign):
        shown_prior = 1.0 / design.k if prior is None else prior
        deniability = rr.krr_deniability(design, shown_prior)
    else:
        shown_prior = 0.1 if prior is None else prior
        deniability = rr.deniability(design, shown_prior)
    epsilon = accounted_epsilon(design)
    extra: dict[str, Any] = {}
    if not isinstance(design, rr.KRRDesign):
        # Issue 22.9: the answer a person would worry about is the one that raises the posterior
        # (crosswise with p < ½: DIFFERENT), not always a reported yes.
        report, posterior = rr.revealing_deniability(design, shown_prior)
        extra["revealing_report"] = report
        extra["revealing_deniability"] = float(posterior)
    if plain.design_per_option:
        # Each option is one report through this design: ε adds up over the k options, and
        # the planned precision below is per option (docs/formulas.md#multi).
        options = k or 0
        extra["epsilon_per_option"] = epsilon if math.isfinite(epsilon) else None
        extra["options"] = options
        epsilon = multi_epsilon(epsilon, options) if options else epsilon
    # A kind whose ε holds only under an assumption says it wherever ε is shown (crosswise).
    extra.update(definition_kind(kind, spec).design_notes())
    return {
        **extra,
        "epsilon": epsilon if math.isfinite(epsilon) else None,
        "private": bool(design.is_private) and math.isfinite(epsilon),
        "design": dict(design.to_spec()),
        "deniability": float(deniability),
        "prior": float(shown_prior),
        "planned_n": planned_n,
        "planned_half_width": rr.planned_half_width(
            design, n=planned_n, prior=prior, confidence=confidence
        ),
        "planned_half_width_direct": rr.planned_half_width_direct(
            n=planned_n, prior=prior, confidence=confidence
        ),
        "sample_size_for_5pp": rr.sample_size(
            design, half_width=half_width, prior=prior, confidence=confidence
        ),
        "sample_size_direct_for_5pp": rr.sample_size_direct(
            half_width=half_width, prior=prior, confidence=confidence
        ),
    }
