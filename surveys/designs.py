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
from dpcore.local import browser as rr_browser
from dpcore.local import cheater as rr_cheater
from dpcore.local import designs as rr_designs
from surveys import physical
from surveys.innocuous import CROSSWISE_ASSUMPTION, INNOCUOUS_STATEMENTS

#: Default k-RR ε for choice questions: ln 3, the local ε of the default coin design, so every
#: randomized question in a default survey protects the respondent equally and "total ε" is simply
#: (number of randomized questions) × ln 3.
_CHOICE_DEFAULT = next(e for e in rr_designs.registered() if "options" in e.serves).starting
DEFAULT_CHOICE_EPSILON = float(_CHOICE_DEFAULT["epsilon"])

YES_NO = "yes_no"
CHEATER = "cheater_detection"
CHOICE = "choice"
# Randomized multi-select (docs/formulas.md#multi): each option is its own yes/no report through
# one shared binary design, drawn independently; the question's ε is the sum over its options.
MULTI = "multi"
RANDOMIZED_KINDS = (YES_NO, CHOICE, MULTI)
#: The question shape (:data:`dpcore.local.designs.Serves`) a randomized kind's design serves.
_SHAPES: dict[str, rr_designs.Serves] = {YES_NO: "binary", CHOICE: "options", MULTI: "each_option"}


def app_designs(kind: str) -> tuple[rr_designs.DesignEntry, ...]:
    """The registered designs a question of ``kind`` may use, in registry order. A design whose
    reports are ``{group, report}`` needs a question kind registered under its name (its tallies,
    estimates and page), so a design registered in ``dpcore`` alone is not offered yet."""
    from surveys.kinds.registry import kinds  # the kinds read this module's helpers

    shape = _SHAPES.get(kind)
    kind_names = {k.name for k in kinds()}
    return tuple(
        entry
        for entry in rr_designs.registered()
        if shape in entry.serves and (not entry.grouped or entry.name in kind_names)
    )


def design_names(kind: str) -> tuple[str, ...]:
    return tuple(entry.name for entry in app_designs(kind))


#: The yes/no designs a multi question may use (the registry's ``each_option``: one report
#: P(yes) = c·π + d and a coin/spinner randomizer); crosswise and the grouped designs are refused.
MULTI_DESIGN_NAMES = tuple(e.name for e in rr_designs.registered() if "each_option" in e.serves)


def default_design_spec(kind: str) -> dict[str, Any] | None:
    """The design used when a question of ``kind`` gives none (None for direct questions)."""
    if kind in (YES_NO, MULTI):
        return dict(rr.DEFAULT_YES_NO_SPEC)
    if kind == CHOICE:
        return dict(_CHOICE_DEFAULT)
    return None


def starting_designs() -> dict[str, dict[str, Any]]:
    """Each registered design's starting spec, for the builder's data island (the browser has
    no copy of any design or probability). A design that shows an innocuous statement starts with
    the library's first (surveys.innocuous), and its prevalence if the design states one."""
    first = INNOCUOUS_STATEMENTS[0]
    out: dict[str, dict[str, Any]] = {}
    for entry in rr_designs.registered():
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
    served = {kind: set(design_names(kind)) for kind in RANDOMIZED_KINDS}
    described = [
        {**e.describe(), "kinds": [k for k in RANDOMIZED_KINDS if e.name in served[k]]}
        for e in rr_designs.registered()
    ]
    return [d for d in described if d["kinds"]]


def design_for(kind: str, spec: Mapping[str, Any] | None, *, k: int | None = None) -> Any:
    """Build the ``dpcore.local`` design for a kind and spec; raises ``rr.DesignError``."""
    if kind not in RANDOMIZED_KINDS:
        return None
    if spec is not None and not isinstance(spec, Mapping):
        raise rr.DesignError("spec", "must be an object with a 'name'")
    given = dict(spec) if spec else default_design_spec(kind)
    if given is None:  # unreachable: every randomized kind has a default design
        raise rr.DesignError("spec", f"no default design for {kind!r}")
    if kind == CHOICE:
        return rr.design_from_spec(given, k=k)
    entry = _grouped_entry(given.get("name"))
    if entry is not None:  # reports {group, report}: its own spec (dpcore.local.designs)
        if kind == MULTI:
            raise rr.DesignError("name", f"{entry.name} is not available for multi questions")
        return entry.build(given, None)
    return rr.design_from_spec(given)


def _grouped_entry(name: object) -> rr_designs.DesignEntry | None:
    """The registry entry of a design whose reports are ``{group, report}`` (None otherwise)."""
    entries = {e.name: e for e in rr_designs.registered() if e.grouped}
    return entries.get(name) if isinstance(name, str) else None


def is_cheater(design: Any) -> bool:
    """The cheating-detection design (two groups; not a ``BinaryDesign``: its own tally cells,
    estimates and page branch)."""
    return isinstance(design, rr_cheater.CheaterDetectionDesign)


def check_runnable(design: Any) -> None:
    """The local-ε cap and the page's exact integer thresholds (``dpcore.local.browser``), for
    each group of a cheating-detection design; raises ``rr.DesignError`` naming the field."""
    if not is_cheater(design):
        rr_browser.check_epsilon_cap(design)
        rr_browser.browser_plan(design)
        return
    for i, group in enumerate(rr_cheater.group_designs(design)):
        try:
            rr_browser.check_epsilon_cap(group)
            rr_browser.browser_plan(group)
        except rr.DesignError as exc:
            raise rr.DesignError(f"groups[{i}]", exc.message) from None


def _cheater_epsilon(design: rr_cheater.CheaterDetectionDesign) -> float:
    """max(nominal, the page's per-group thresholds, the coins/dice of each group): the group is
    drawn independently of the answer, so a respondent's ε is the larger group ε."""
    epsilon = max(float(design.epsilon), rr_cheater.browser_thresholds(design)[1])
    realisations = physical.cheater_realisation(design)
    for realisation in realisations or ():
        epsilon = max(epsilon, realisation.epsilon)
    return epsilon


def question_design(question: Any) -> Any:
    """The question's design (``BinaryDesign`` / ``KRRDesign``), or None for category/number.

    Cached on the instance: estimates and exports ask for it several times per request.
    """
    cached = getattr(question, "_rr_design_cache", None)
    k = len(question.options or [])
    signature = (question.kind, repr(question.design), k)
    if cached is not None and cached[0] == signature:
        return cached[1]
    design = design_for(question.kind, question.design, k=k or None)
    question._rr_design_cache = (signature, design)
    return design


def accounted_epsilon(design: Any) -> float:
    """The ε reported for a design: the largest of its nominal ε, the ε the browser's integer
    thresholds realise and (when coins or dice can run it) the ε of the physical faces, each
    computed exactly and rounded up. So the server never reports less than a page runs
    (``dpcore.local.browser``). A design the browser cannot run gets its nominal ε; the survey
    service refuses such designs, and the respondent page refuses to run one stored earlier."""
    epsilon = float(design.epsilon)
    if not math.isfinite(epsilon):
        return epsilon
    if is_cheater(design):
        return _cheater_epsilon(design)
    try:
        epsilon = max(epsilon, rr_browser.browser_plan(design).epsilon)
    except rr.DesignError:
        pass
    realisation = physical.physical_realisation(design)
    if realisation is not None:
        epsilon = max(epsilon, realisation.epsilon)
    return epsilon


def question_browser_plan(question: Any) -> rr_browser.BrowserPlan | None:
    """The thresholds the respondent page draws against (None: not randomized, or a design the
    browser cannot run exactly — stored before the checks existed)."""
    design = question_design(question)
    if design is None or is_cheater(design):
        return None  # the cheating-detection page gets cheater_thresholds instead
    try:
        return rr_browser.browser_plan(design)
    except rr.DesignError:
        return None


def question_thresholds(question: Any) -> dict[str, int] | None:
    """The page's integer thresholds: the browser plan's, or for cheating detection
    ``group_<i>_truth``/``group_<i>_yes`` per group (``dpcore.local.cheater.browser_thresholds``);
    None when not randomized or not runnable exactly."""
    design = question_design(question)
    if design is not None and is_cheater(design):
        try:
            return rr_cheater.browser_thresholds(design)[0]
        except rr.DesignError:
            return None
    plan = question_browser_plan(question)
    return dict(plan.thresholds) if plan is not None else None


def option_epsilon(question: Any) -> float | None:
    """Local ε of one report of the question: the whole question, except for ``multi``, where
    it is one option's report (None for the non-randomized kinds); cached."""
    design = question_design(question)
    if design is None:
        return None
    cached = getattr(question, "_accounted_epsilon_cache", None)
    if cached is not None and cached[0] is design:
        return cached[1]
    epsilon = accounted_epsilon(design)
    question._accounted_epsilon_cache = (design, epsilon)
    return epsilon


def is_multi(question: Any) -> bool:
    return bool(getattr(question, "kind", None) == MULTI)


def multi_epsilon(per_option: float, k: int) -> float:
    """ε of k independent reports of one respondent, each ``per_option``-LDP: k·ε by sequential
    (basic) composition, rounded up so it is never below the exact sum (docs/formulas.md#multi)."""
    total = per_option * k
    return math.nextafter(total, math.inf) if k > 1 and math.isfinite(total) else total


def question_epsilon(question: Any) -> float | None:
    """Local ε of one question as accounted (None for the non-randomized kinds): for ``multi``
    the sum over its options of each option's ε (the same design on every option)."""
    epsilon = option_epsilon(question)
    if epsilon is None or not is_multi(question):
        return epsilon
    return multi_epsilon(epsilon, len(question.options or []))


def epsilon_local_total(questions: Any) -> float:
    """A respondent's total local ε: the sum over the randomized questions (basic composition)."""
    total = 0.0
    for question in questions:
        eps = question_epsilon(question)
        if eps is not None:
            total += eps
    return total


def design_description(question: Any) -> dict[str, Any] | None:
    """The spec plus the derived parameters, for API output and export metadata.

    Binary designs add ``c`` and ``d`` (λ = c·π + d); k-RR adds ``k`` and its keep / other
    probabilities. Values are plain floats, so the dict is JSON-serializable.
    """
    design = question_design(question)
    if design is None:
        return None
    out: dict[str, Any] = dict(design.to_spec())
    if is_cheater(design):
        out["group_epsilons"] = [float(e) for e in design.group_epsilons]
    elif question.kind in (YES_NO, MULTI):
        out["c"] = float(design.c)
        out["d"] = float(design.d)
        if question.kind == MULTI:
            # The shared design is applied to every option independently: one report each.
            out["applies_to"] = "each_option"
            out["options"] = len(question.options or [])
            out["epsilon_per_option"] = option_epsilon(question)
    else:
        out["k"] = int(design.k)
        out["keep_probability"] = float(design.keep_probability)
        out["other_probability"] = float(design.other_probability)
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
    if kind == MULTI and spec is not None and spec.get("name") not in MULTI_DESIGN_NAMES:
        raise rr.DesignError(
            "name", f"for a multi question use one of: {', '.join(MULTI_DESIGN_NAMES)}"
        )
    design = design_for(kind, spec, k=None if kind == MULTI else k)
    if design is None:
        raise rr.DesignError("kind", "only randomized kinds (yes_no, choice, multi) have a design")
    if is_cheater(design):
        return _cheater_preview(design, planned_n, prior, confidence, half_width)
    if kind == CHOICE:
        shown_prior = 1.0 / design.k if prior is None else prior
        deniability = rr.krr_deniability(design, shown_prior)
    else:
        shown_prior = 0.1 if prior is None else prior
        deniability = rr.deniability(design, shown_prior)
    epsilon = accounted_epsilon(design)
    extra: dict[str, Any] = {}
    if kind != CHOICE:
        # Issue 22.9: the answer a person would worry about is the one that raises the posterior
        # (crosswise with p < ½: DIFFERENT), not always a reported yes.
        report, posterior = rr.revealing_deniability(design, shown_prior)
        extra["revealing_report"] = report
        extra["revealing_deniability"] = float(posterior)
    if kind == MULTI:
        # Each option is one report through this design: ε adds up over the k options, and
        # the planned precision below is per option (docs/formulas.md#multi).
        options = k or 0
        extra["epsilon_per_option"] = epsilon if math.isfinite(epsilon) else None
        extra["options"] = options
        epsilon = multi_epsilon(epsilon, options) if options else epsilon
    if getattr(design, "name", None) == "crosswise":
        # The crosswise ε is valid only under this assumption: say it wherever ε is shown.
        extra["assumption"] = CROSSWISE_ASSUMPTION
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
