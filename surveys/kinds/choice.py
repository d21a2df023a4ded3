"""The ``choice`` question kind."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from dpcore import local as rr
from surveys.kinds._data import (
    QuestionCounts,
    clean_option,
    estimate_fields,
    float_or_none,
    options_entry,
)
from surveys.kinds.base import QuestionKind
from surveys.specs import Answer

# Default k-RR ε for choice questions: ln 3 ≈ 1.0986, the same local ε as the default coin design
# for yes/no questions, so every randomized question in a default survey protects the respondent
# equally and "total ε" is simply (number of randomized questions) × ln 3.
DEFAULT_CHOICE_EPSILON = math.log(3)


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = "choice"
    stored_kind: ClassVar[str] = "choice"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    comparison: ClassVar[str | None] = "categorical"
    power_planning: ClassVar[bool] = True

    has_options: ClassVar[bool] = True
    may_be_ordered: ClassVar[bool] = True

    def default_design_spec(self) -> dict[str, Any] | None:
        return {"name": "k_rr", "epsilon": DEFAULT_CHOICE_EPSILON}

    def design_k(self, options: Sequence[str]) -> int | None:
        return len(options)

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        return rr.design_from_spec(spec, k=k)

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_option(question, value)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option's share debiased by k-RR; an ordered question adds its mean score."""
        from dpcore.local.ordinal import estimate_mean_score
        from surveys.kinds import _estimates as e

        design = counts.design
        values = [counts.cells[o] for o in question.options]
        est = rr.estimate_krr(design, counts=values, confidence=counts.confidence)
        options = tuple(
            e.OptionEstimate(
                option=option,
                reported=int(o.reported),
                reported_rate=float_or_none(o.reported_rate),
                **estimate_fields(o),
            )
            for option, o in zip(question.options, est.options, strict=True)
        )
        mean_score = None
        if question.ordered:
            score = estimate_mean_score(design, counts=values, confidence=counts.confidence)
            mean_score = e.MeanScore(**estimate_fields(score), min=1, max=len(values))
        return e.ChoiceEstimate(
            **counts.header, n=int(est.n), options=options, mean_score=mean_score
        )

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        return options_entry(question)

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
