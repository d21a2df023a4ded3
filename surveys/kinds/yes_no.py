"""The ``yes_no`` question kind."""

from __future__ import annotations

from typing import ClassVar

from surveys.kinds.base import QuestionKind


class YesNoKind(QuestionKind):
    name: ClassVar[str] = "yes_no"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
