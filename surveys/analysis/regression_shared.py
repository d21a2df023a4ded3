"""What the regression fits share (``surveys.analysis.regression``, ``.latent_logistic`` and
``.linear_regression``; docs/analysis.md): which predictors enter as latent traits, the refusal
of a fit with too few respondents, and the figures every ``GET …/regression/`` body has."""

from __future__ import annotations

from collections.abc import Sequence

from deniable.errors import InvalidInput
from surveys.kinds import kind_of
from surveys.models import Question

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
