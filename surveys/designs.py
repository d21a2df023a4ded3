"""Glue between a stored :class:`~surveys.models.Question` and its ``dpcore.local`` design.

The question row keeps the design *spec* (a small JSON dict); everything derived from it — the
linear form ``λ = c·π + d``, the local ε, the k-RR keep probability — is computed here by
``dpcore.local`` so that there is exactly one implementation of the formulas
(docs/formulas.md#local).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dpcore import local as rr
from dpcore.local import browser as rr_browser
from dpcore.local import cheater as rr_cheater
from surveys import physical
from surveys.innocuous import INNOCUOUS_STATEMENTS
from surveys.kinds import kind_of
from surveys.kinds.base import QuestionLike
from surveys.kinds.cheater_detection import CheaterDetectionKind
from surveys.kinds.choice import DEFAULT_CHOICE_EPSILON
from surveys.kinds.definitions import definition_kind, preview_kind, randomized_stored_kinds
from surveys.kinds.multi import DESIGN_NAMES as MULTI_DESIGN_NAMES  # noqa: F401 — kept name

CHEATER = CheaterDetectionKind.name


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


def starting_designs() -> dict[str, dict[str, Any]]:
    """The values the survey builder fills in for each design name (``static/js/builder.js``
    receives them in its data island; the browser has no copy of any design or probability).

    Yes/no designs start at ε = ln 3 like the default coin design (forced response 0.5/0.25/0.25;
    Warner p = ¾: ln(p/(1 − p)) = ln 3); the unrelated question at p = ¾ with a 50–50 harmless
    question; choice questions at :data:`DEFAULT_CHOICE_EPSILON`.
    """
    return {
        "forced_response": dict(rr.DEFAULT_YES_NO_SPEC),
        "warner": {"name": "warner", "p": 0.75},
        "unrelated_question": {
            "name": "unrelated_question",
            "p": 0.75,
            "innocuous_prevalence": 0.5,
        },
        "k_rr": {"name": "k_rr", "epsilon": DEFAULT_CHOICE_EPSILON},
        # Cheating detection: group 1 forced YES/NO ¼/¼ (ε = ln 3), group 2 forced YES ½, NO ¼
        # (ε = ln 2); both run exactly on coins.
        CHEATER: {
            "name": CHEATER,
            "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
        },
        # Any two probabilities: P(yes | trait) = ¾, P(yes | no trait) = ¼ (ε = ln 3; a coin
        # flipped twice realises it).
        "two_probability": {
            "name": "two_probability",
            "p_yes_if_trait": 0.75,
            "p_yes_if_not": 0.25,
        },
        # Crosswise: the first vetted innocuous statement (mother born January–March, p = ¼:
        # ε = ln 3, surveys.innocuous).
        "crosswise": {
            "name": "crosswise",
            "innocuous_prevalence": INNOCUOUS_STATEMENTS[0]["prevalence"],
            "innocuous_text": INNOCUOUS_STATEMENTS[0]["text"],
        },
    }


def design_for(kind: str, spec: Mapping[str, Any] | None, *, k: int | None = None) -> Any:
    """Build the ``dpcore.local`` design for a kind and spec; raises ``rr.DesignError``."""
    try:
        plain = definition_kind(kind)
    except LookupError:
        return None
    if not plain.randomized:
        return None
    if spec is not None and not isinstance(spec, Mapping):
        raise rr.DesignError("spec", "must be an object with a 'name'")
    given = dict(spec) if spec else plain.default_design_spec()
    if given is None:  # unreachable: every randomized kind has a default design
        raise rr.DesignError("spec", f"no default design for {kind!r}")
    return definition_kind(kind, given).build_design(given, k)


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


#: A ``dpcore.local`` design of a question.
LocalDesign = rr.BinaryDesign | rr.KRRDesign | rr_cheater.CheaterDetectionDesign


@dataclass
class DesignMemo:
    """A question's design, built once per definition (kind, spec, number of options), and its
    accounted ε once asked: the memo a row keeps between the reads of one request."""

    signature: tuple[str, str, int]
    design: LocalDesign | None
    epsilon: float | None = None


def _memo(question: QuestionLike) -> DesignMemo:
    k = len(question.options or [])
    signature = (question.kind, repr(question.design), k)
    memo = getattr(question, MEMO_ATTRIBUTE, None)
    if isinstance(memo, DesignMemo) and memo.signature == signature:
        return memo
    memo = DesignMemo(signature, design_for(question.kind, question.design, k=k or None))
    setattr(question, MEMO_ATTRIBUTE, memo)
    return memo


#: The attribute of a question row holding its :class:`DesignMemo` (not a column).
MEMO_ATTRIBUTE = "_design_memo"


def question_design(question: QuestionLike) -> Any:
    """The question's design (``BinaryDesign`` / ``KRRDesign`` / ``CheaterDetectionDesign``),
    or None for category/number. Memoized on the instance: estimates and exports ask for it
    several times per request. Typed as ``Any`` for the callers that narrow it by kind; the
    typed value is ``design_memo(question).design`` (:data:`LocalDesign`)."""
    return _memo(question).design


def design_memo(question: QuestionLike) -> DesignMemo:
    """The question's :class:`DesignMemo` (its typed design and accounted ε)."""
    return _memo(question)


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
    memo = _memo(question)
    if memo.design is None:
        return None
    if memo.epsilon is None:
        memo.epsilon = accounted_epsilon(memo.design)
    return memo.epsilon


def is_multi(question: Any) -> bool:
    """One design shared by the question's options, each its own report (multi)."""
    return kind_of(question).design_per_option


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
    elif isinstance(design, rr.KRRDesign):
        out["k"] = int(design.k)
        out["keep_probability"] = float(design.keep_probability)
        out["other_probability"] = float(design.other_probability)
    else:
        out["c"] = float(design.c)
        out["d"] = float(design.d)
        if is_multi(question):
            # The shared design is applied to every option independently: one report each.
            out["applies_to"] = "each_option"
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
