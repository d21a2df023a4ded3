"""Cheating detection (Clark & Desharnais 1998): a yes/no question whose device draws one of two
groups and reports under that group's forced-response design. Its answer is ``{group, report}``,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from typing import ClassVar

from dpcore.central.release_parts import CheaterPart, ReleasePart
from surveys.kinds._release import question_cells
from surveys.kinds.base import QuestionKind, QuestionLike, design_name


class CheaterDetectionKind(QuestionKind):
    name: ClassVar[str] = "cheater_detection"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """Its four cells (group × report) are ONE histogram: the group is drawn on the device,
        so each respondent sits in exactly one group and gives one report — Δ = 1, not one per
        group (:mod:`dpcore.central.cheater`)."""
        from surveys import designs

        return CheaterPart(question_cells(question), design=designs.question_design(question))

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
