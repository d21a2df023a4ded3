"""The ``multi`` question kind."""

from __future__ import annotations

from typing import ClassVar

from dpcore.central.release_parts import OptionsPart, ReleasePart
from surveys.kinds._release import linear_form
from surveys.kinds.base import QuestionKind, QuestionLike


class MultiKind(QuestionKind):
    name: ClassVar[str] = "multi"
    stored_kind: ClassVar[str] = "multi"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """k histograms (YES_i, NO_i), one per option, each Δ = 1: a respondent moves one cell of
        every option (:func:`dpcore.central.sensitivity.multi_sensitivities`)."""
        from surveys.tally_layout import MULTI_ANSWERED

        c, d = linear_form(question)
        return OptionsPart(tuple(question.options or ()), MULTI_ANSWERED, c=c, d=d)

    def release_note(self, question: QuestionLike) -> str:
        return f": a yes/no count per option; counts {len(question.options or [])} times"

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
