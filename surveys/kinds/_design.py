"""A question's ``dpcore.local`` design, built once per definition, and its accounted local ε.

Inside the kinds package so a kind module can ask for its question's design without importing
``surveys.definitions.question_designs`` (the glue that asks the kinds: a cycle otherwise).
``surveys.definitions.question_designs``
re-exports every name. Formulas: docs/formulas.md#local.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from dpcore import local as rr
from dpcore.local import browser as rr_browser
from dpcore.local import cheater as rr_cheater
from surveys.definitions import physical
from surveys.kinds._definitions import definition_kind
from surveys.kinds._question import QuestionLike
from surveys.kinds.registry import kind_of


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


@runtime_checkable
class GroupedDesign(Protocol):
    """A design whose reports are ``{group, report}`` (cheating detection, the unrelated question
    with an unknown prevalence): its ε is the larger of its groups'."""

    @property
    def group_epsilons(self) -> tuple[float, float]: ...


def is_grouped(design: Any) -> bool:
    """A two-group design (its description lists ``group_epsilons``)."""
    return isinstance(design, GroupedDesign)


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


def report_arity(question: Any) -> int | None:
    """k when each respondent's report of the question is one k-ary randomized response at the
    accounted ε, or a post-processing of one, the same for everyone: k-RR (the browser's and the
    dice's realisations are k-RR of no larger ε), and k = 2 for one report λ = c·π + d of a yes/no
    trait (every ε-DP randomizer of a binary input is a post-processing of binary RR: Kairouz, Oh
    & Viswanath 2015). None otherwise (one report per option, grouped designs). What the shuffle
    accounting may assume of a file of this column alone (docs/formulas.md#shuffling)."""
    design = _memo(question).design
    if design is None or is_multi(question):
        return None
    if isinstance(design, rr.KRRDesign):
        return int(design.k)
    if isinstance(design, rr.BinaryDesign):
        return 2
    return None


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
