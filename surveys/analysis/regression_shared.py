"""What the regression fits share (``surveys.analysis.regression``, ``.latent_logistic`` and
``.linear_regression``; docs/analysis.md): which predictors enter as latent traits, the refusal
of a fit with too few respondents, and the figures every ``GET …/regression/`` body has."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from deniable.errors import InvalidInput
from dpcore.local.regression import Coefficient
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Question, Survey

MIN_PER_PARAMETER = 5  # respondents per fitted parameter below which a fit is refused


def is_latent(question: Question) -> bool:
    """A randomized binary report with one linear model P(yes) = c·π + d (what a regression
    outcome must be, and what may enter a regression as a latent trait)."""
    return kind_of(question).outcome_error(question.key) is None


def split_predictors(
    questions: dict[str, Question],
    outcome: str,
    predictors: Sequence[str],
    *,
    max_latent: int,
    refused: str,
) -> tuple[list[Question], list[Question]]:
    """``(direct predictors, randomized predictors)``, or a 400 naming ``predictors``; ``refused``
    is the message's end for a question that can be neither."""
    direct: list[Question] = []
    latent: list[Question] = []
    for key in predictors:
        if key == outcome:
            raise InvalidInput.single("predictors", "The outcome cannot be a predictor.")
        q = questions.get(key)
        if q is None:
            raise InvalidInput.single("predictors", f"No question with key {key!r}.")
        if kind_of(q).predictor:
            direct.append(q)
        elif is_latent(q):
            latent.append(q)
        else:
            raise InvalidInput.single("predictors", f"{key!r} is {q.kind}: {refused}")
    if len(latent) > max_latent:
        raise InvalidInput.single(
            "predictors",
            f"At most {max_latent} randomized predictors ({len(latent)} given): each doubles the "
            f"latent states the fit sums over (2^{max_latent} = {2**max_latent}).",
        )
    return direct, latent


def require_respondents(n: int, parameters: int, unit: str = "parameters") -> None:
    """A 400 naming ``outcome`` unless ``n`` respondents can fit ``parameters`` parameters (or
    terms): at least 10, and ``MIN_PER_PARAMETER`` per parameter."""
    need = max(10, MIN_PER_PARAMETER * parameters)
    if n < need:
        raise InvalidInput.single(
            "outcome",
            f"Too few respondents with the outcome and every predictor answered ({n}; need at "
            f"least {need} for {parameters} {unit}).",
        )


class _Fit(Protocol):
    @property
    def n(self) -> int: ...
    @property
    def log_likelihood(self) -> float: ...
    @property
    def converged(self) -> bool: ...
    @property
    def iterations(self) -> int: ...
    @property
    def confidence(self) -> float: ...
    @property
    def warnings(self) -> Sequence[str]: ...
    @property
    def coefficients(self) -> Sequence[Coefficient]: ...


class _Data(Protocol):
    @property
    def n_excluded(self) -> int: ...
    @property
    def reference(self) -> dict[str, str]: ...
    @property
    def dropped_levels(self) -> dict[str, list[str]]: ...


def latent_rows(latent: Sequence[Question], prevalence: Sequence[float]) -> list[dict[str, Any]]:
    """The body's ``latent``: each randomized predictor's design and estimated prevalence."""
    return [
        {"key": q.key, "design": designs.design_description(q), "prevalence": share}
        for q, share in zip(latent, prevalence, strict=True)
    ]


def fit_body(
    survey: Survey,
    outcome: Question,
    fit: _Fit,
    data: _Data,
    *,
    design: Any,
    family: str,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A regression's JSON body: the fit's figures, then ``extra`` (the family's own keys), then
    the coefficients (a linear fit's ``odds_ratio`` is None: ``dpcore.local.linear_rr``)."""
    return {
        "survey": survey.slug,
        "outcome": outcome.key,
        "design": design,
        "family": family,
        "n": fit.n,
        "n_excluded": data.n_excluded,
        "reference": data.reference,
        "dropped_levels": data.dropped_levels,
        "log_likelihood": fit.log_likelihood,
        "converged": fit.converged,
        "iterations": fit.iterations,
        "confidence": fit.confidence,
        "warnings": list(fit.warnings),
        **(extra or {}),
        "coefficients": [
            {
                "term": co.term,
                "estimate": co.estimate,
                "std_error": co.std_error,
                "ci_low": co.ci_low,
                "ci_high": co.ci_high,
                "z": co.z,
                "p_value": co.p_value,
                "odds_ratio": co.odds_ratio,
            }
            for co in fit.coefficients
        ],
    }
