"""Validated write requests: frozen, typed values made by the input serializers
(:mod:`surveys.inputs`) and taken by the services (:mod:`surveys.services`).

A spec exists only once every rule of its serializer held, so services never re-check shapes,
types or ranges; they check what needs the database (a taken slug, a draft survey, a token).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from types import MappingProxyType
from typing import Any

# Limits of a survey's shape (the input serializers state them; services and pages read them).
KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
KEY_RE = re.compile(KEY_PATTERN)
MAX_QUESTIONS = 100
MIN_OPTIONS = 2
MAX_OPTIONS = 50
MAX_OPTION_LENGTH = 200
TITLE_MAX = 200
MAX_INVITATIONS = 10_000
MAX_TOKEN_LENGTH = 200  # an invitation token as a client may send it
# A custom survey slug (docs/api.md#surveys): lowercase letters, digits and inner hyphens, 3–32
# characters (the column's length), so a link reads well and is typed without ambiguity.
SLUG_MAX = 32
SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{1,30})[a-z0-9]$"
SLUG_RE = re.compile(SLUG_PATTERN)
# Slugs a path already uses (/surveys/new/ is the builder; /api/v1/surveys/import/xlsform/).
RESERVED_SLUGS = frozenset({"new", "import"})

# Number questions' bounds: |min|, |max| ≤ 1e9. Each answer adds x² ≤ 1e18 to a float64 tally,
# so even 2⁵³ respondents sum to ≤ 9e33, far below the float maximum 1.8e308: the tallies stay
# finite (an answer of 1e200 within ±1e300 once stored x² = ∞, and the survey's estimates 503'd).
# Exactness is another matter: sums are exact integers only below 2⁵³ ≈ 9e15 (e.g. integer
# answers |x| ≤ 3e4 at 1e7 respondents); beyond that their relative rounding error is at most
# n·2⁻⁵³ ≈ 1.1e-9 at n = 1e7, which costs the standard error precision only when the spread is
# below ~3e-5 of the mean (``surveys.selectors._number_entry`` reports a conservative SE then).
# 1e9 still covers every survey quantity we know of (incomes in cents, populations, seconds).
MAX_ABS_NUMBER = 1e9

# A reported answer: yes_no → bool, choice/category → an option, number → a float.
Answer = bool | str | float | dict[str, Any]  # dict: cheating detection's {group, report}


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class ShowIf:
    """Skip logic: show the question only when the earlier category question ``key`` was
    answered with one of ``values`` (``"in"`` in the API)."""

    key: str
    values: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "in": list(self.values)}


@dataclass(frozen=True)
class QuestionSpec:
    """One question: ``design`` is the canonical spec (``dpcore.local``) of a randomized kind,
    empty for category and number; ``min_value``/``max_value`` only for number."""

    key: str
    text: str
    kind: str
    design: Mapping[str, Any] = field(default_factory=dict)
    options: tuple[str, ...] = ()
    min_value: float | None = None
    max_value: float | None = None
    # Issue 16 (docs/api.md#questions): an optional question may be left unanswered; a direct
    # question may be shown only for some answers to an earlier category question; a choice
    # question's options may be ordered (scores 1..k, estimates add a mean score).
    required: bool = True
    show_if: ShowIf | None = None
    ordered: bool = False
    # Issue 22 item 1: a number question may take whole numbers only.
    integer: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "design", _frozen(self.design))
        object.__setattr__(self, "options", tuple(self.options))


@dataclass(frozen=True)
class SurveySpec:
    """``POST /api/v1/surveys/``: a whole draft survey (defaults filled in)."""

    title: str
    budget_epsilon: float
    budget_delta: float
    description: str = ""
    access: str = "open"
    closes_at: datetime | None = None
    response_cap: int | None = None
    planned_n: int = 1000
    questions: tuple[QuestionSpec, ...] = ()
    slug: str | None = None  # None: a random one
    # Respondent-facing languages (the default first) and the complete content in every other
    # one (surveys.definitions.translations; docs/translations.md).
    languages: tuple[str, ...] = ()
    translations: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "languages", tuple(self.languages))
        object.__setattr__(self, "translations", _frozen(self.translations))

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :func:`surveys.services.survey_create`."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class SurveyChanges:
    """``PATCH /api/v1/surveys/<slug>/``: only the fields given. ``values`` holds model field
    values (``budget`` becomes ``budget_epsilon`` and ``budget_delta``); ``questions``, when
    not None, replaces them all."""

    values: Mapping[str, Any] = field(default_factory=dict)
    questions: tuple[QuestionSpec, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _frozen(self.values))


@dataclass(frozen=True)
class SubmissionSpec:
    """``POST /api/v1/surveys/<slug>/responses/`` (and the no-JS form): reported answers only,
    checked against the survey's questions; unanswered optional questions are absent."""

    submission_id: uuid.UUID
    randomizer: str
    answers: Mapping[str, Answer]
    token: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "answers", _frozen(self.answers))

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :func:`surveys.services.submission_create`."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class InvitationRequest:
    """``POST /api/v1/surveys/<slug>/invitations/``."""

    count: int
    format: str = "json"


@dataclass(frozen=True)
class DesignPreviewRequest:
    """``POST /api/v1/designs/preview/``: ``k`` is the number of options of a choice question."""

    kind: str
    design: Mapping[str, Any] | None
    k: int | None
    planned_n: int
    prior: float | None
    confidence: float


@dataclass(frozen=True)
class RegressionQuery:
    """``GET …/regression/`` (docs/analysis.md): the outcome and predictor keys as given (the
    survey's questions decide whether they exist and have the right kinds)."""

    outcome: str
    predictors: tuple[str, ...]
    confidence: float
    family: str = "logistic"


@dataclass(frozen=True)
class RecommendRequest:
    """``POST /api/v1/designs/recommend/`` (docs/analysis.md#recommend): a k-option question's
    designs compared at local ε for n respondents."""

    kind: str
    options: int
    epsilon: float
    n: int
    confidence: float


@dataclass(frozen=True)
class PowerRequest:
    """``POST /api/v1/designs/power/`` (docs/analysis.md): exactly one of ``power`` (→ n) and
    ``n`` (→ power); ``k`` is the number of options of a choice design."""

    kind: str
    test: str
    design: Any  # any JSON value: the design check (surveys.analysis.power) names what is wrong
    k: int | None
    pi0: float
    pi1: float
    alpha: float
    power: float | None
    n: int | None
    method: str = "normal"  # "normal" (approximation) or "exact" (binomial)


@dataclass(frozen=True)
class RegressionPowerRequest:
    """``POST /api/v1/designs/power/regression/`` (docs/analysis.md#regression-power): a yes/no
    design, the prevalence ``pi0`` where the binary predictor is 0, the effect (odds ratio and
    the predictor's share of 1s), and exactly one of ``power`` (→ n) and ``n`` (→ power)."""

    design: Any
    pi0: float
    odds_ratio: float
    predictor: str  # "binary" (share of 1s) or "continuous" (standard normal; OR per SD)
    predictor_share: float | None
    alpha: float
    power: float | None
    n: int | None


@dataclass(frozen=True)
class Poststratification:
    """``?poststratify=<key>&shares=…`` (docs/analysis.md#post-stratification): a direct
    category question's key and each of its options' population share W_h, in the question's
    option order, divided by their sum (which was 1 within the stated tolerance)."""

    key: str
    shares: tuple[tuple[str, float], ...]

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "shares": dict(self.shares)}
