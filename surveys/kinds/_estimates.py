"""The typed estimates a question kind returns (``QuestionKind.estimate``); the selectors and the
API shape them (``surveys.selectors.estimates``, ``surveys.api.estimates``). Pure data: nothing
here imports the models, so the kind modules can build them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EstimateFields:
    """Point estimate, standard error and interval (None where undefined)."""

    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class QuestionHeader:
    """What every entry starts with (ε and design are None for direct kinds)."""

    key: str
    text: str
    kind: str
    epsilon: float | None
    design: dict[str, Any] | None
    #: The design's goodness of fit (``QuestionKind.fit``); None where the design has none.
    fit: dict[str, Any] | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class BinaryEstimate(QuestionHeader, EstimateFields):
    """A yes/no question: the share answering yes, debiased."""

    n: int
    reported_yes: int
    reported_yes_rate: float | None


@dataclass(frozen=True)
class CheaterDetectionEstimate(BinaryEstimate):
    """A yes/no question with the cheating-detection design: ``estimate`` is π (honest yes, as
    ``honest_yes``); ``cheaters`` is γ and ``honest_no`` β, each {estimate, estimate_unclipped,
    std_error, ci_low, ci_high}; ``groups`` the per-group n and reported yes."""

    honest_yes: dict[str, float | None]
    cheaters: dict[str, float | None]
    honest_no: dict[str, float | None]
    at_boundary: bool
    groups: tuple[dict[str, int], ...]


@dataclass(frozen=True)
class OptionEstimate(EstimateFields):
    """One option of a randomized choice question (k-RR)."""

    option: str
    reported: int
    reported_rate: float | None


@dataclass(frozen=True)
class MeanScore(EstimateFields):
    """An ordered choice question's debiased mean score (options scored 1..k in order;
    ``dpcore.local.ordinal``, docs/formulas.md#mean-score)."""

    min: int
    max: int


@dataclass(frozen=True)
class ChoiceEstimate(QuestionHeader):
    """``mean_score`` only for an ordered (Likert) question."""

    n: int
    options: tuple[OptionEstimate, ...]
    mean_score: MeanScore | None = None


@dataclass(frozen=True)
class MultiOptionEstimate(EstimateFields):
    """One option of a randomized multi-select question: the share for whom the option is true,
    debiased through the question's yes/no design (``reported`` counts its YES reports)."""

    option: str
    n: int
    reported: int
    reported_rate: float | None


@dataclass(frozen=True)
class MultiEstimate(QuestionHeader):
    """A multi question: one binary estimate per option (docs/formulas.md#multi); ``n`` answers,
    each of which reported every option. ``epsilon`` is the sum over the options."""

    n: int
    epsilon_per_option: float | None
    options: tuple[MultiOptionEstimate, ...]


@dataclass(frozen=True)
class CategoryShare:
    """One option of a direct category question: its count and raw share."""

    option: str
    count: int
    share: float | None


@dataclass(frozen=True)
class CategoryEstimate(QuestionHeader):
    n: int
    options: tuple[CategoryShare, ...]


@dataclass(frozen=True)
class NumberEstimate(QuestionHeader):
    """A direct number question: mean, standard error of the mean and a normal interval."""

    n: int
    min: float | None
    max: float | None
    mean: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


QuestionEstimate = (
    BinaryEstimate | ChoiceEstimate | CategoryEstimate | NumberEstimate | MultiEstimate
)
