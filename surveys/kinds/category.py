"""The ``category`` question kind."""

from __future__ import annotations

from typing import ClassVar

from surveys.kinds.base import QuestionKind


class CategoryKind(QuestionKind):
    name: ClassVar[str] = "category"
    stored_kind: ClassVar[str] = "category"
    randomized: ClassVar[bool] = False

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    release_groups: ClassVar[bool] = True

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
