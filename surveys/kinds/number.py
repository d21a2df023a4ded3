"""The ``number`` question kind."""

from __future__ import annotations

from typing import ClassVar

from surveys.kinds.base import QuestionKind


class NumberKind(QuestionKind):
    name: ClassVar[str] = "number"
    stored_kind: ClassVar[str] = "number"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
