"""The ``yes_no`` question kind."""

from __future__ import annotations

from typing import ClassVar

from dpcore.central.release_parts import ReleasePart
from surveys.kinds._release import histogram_part
from surveys.kinds.base import QuestionKind, QuestionLike


class YesNoKind(QuestionKind):
    name: ClassVar[str] = "yes_no"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """One histogram (yes, no): Δ = 1, and the share of "yes" is the estimate."""
        return histogram_part(question, share="yes")

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
