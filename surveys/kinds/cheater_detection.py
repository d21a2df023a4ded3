"""Cheating detection (Clark & Desharnais 1998): a yes/no question whose device draws one of two
groups and reports under that group's forced-response design. Its answer is ``{group, report}``,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rest_framework import serializers

from dpcore.local import cheater as rr_cheater
from surveys.kinds._data import (
    QuestionCounts,
    SlotOf,
    estimate_fields,
    metadata_column,
)
from surveys.kinds.base import QuestionKind, QuestionLike, design_name
from surveys.specs import Answer

#: Its cells: the group (drawn on the device) and the report.
CELLS: tuple[str, ...] = ("g1_yes", "g1_no", "g2_yes", "g2_no")
ANSWER_MESSAGE = 'Must be {"group": 1 or 2, "report": a boolean} (the group drawn, the report).'


def cell(value: Mapping[str, Any]) -> str:
    """``{"group": 1, "report": True}`` → "g1_yes"."""
    return f"g{int(value['group'])}_{'yes' if value['report'] else 'no'}"


def group_column(key: str) -> str:
    """Its group column in the export: question keys hold no ".", so it never collides with
    another question's column."""
    return f"{key}.group"


def rr_hint(key: str, design: Mapping[str, Any]) -> str:
    """RRreg's call for the report column (1/0) and the group column (1/2). RRreg's p for CDMsym
    as we read getPW: c(forced yes in group 1, forced no in group 1, forced yes in group 2,
    forced no in group 2) — parameter order NOT verified against RRreg itself."""
    g1, g2 = design["groups"]
    return (
        f'RRreg::RRuni(response = "{key}", data = reports, model = "CDMsym", '
        f"p = c({g1['p_yes']!r}, {g1['p_no']!r}, {g2['p_yes']!r}, {g2['p_no']!r}), "
        f'group = reports[["{group_column(key)}"]])'
    )


class CheaterDetectionKind(QuestionKind):
    name: ClassVar[str] = "cheater_detection"
    stored_kind: ClassVar[str] = "yes_no"
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    linear_model: ClassVar[bool] = False  # compare its π per group in the table instead

    def outcome_error(self, key: str) -> str | None:
        return (
            "A cheater-detection question has no single report model P(yes) = c·π + d "
            "(two groups, and cheaters); regression needs one."
        )

    column_type: ClassVar[str] = "integer"

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        return rr_cheater.design_from_spec(spec)

    def clean_answer(self, question: Any, value: object) -> Answer:
        """The group the device drew (1 or 2) and the reported answer."""
        if not isinstance(value, Mapping) or set(value) != {"group", "report"}:
            raise serializers.ValidationError(ANSWER_MESSAGE)
        group, report = value["group"], value["report"]
        if isinstance(group, bool) or group not in (1, 2) or not isinstance(report, bool):
            raise serializers.ValidationError(ANSWER_MESSAGE)
        return {"group": int(group), "report": report}

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return CELLS

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        vector[slot(key, cell(value))] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """π, γ, β from the per-group counts (``dpcore.local.cheater``, docs/formulas.md)."""
        from surveys.kinds import _estimates as e

        cells = counts.cells
        n = [cells[f"g{i}_yes"] + cells[f"g{i}_no"] for i in (1, 2)]
        yes = [cells[f"g{i}_yes"] for i in (1, 2)]
        est = rr_cheater.estimate_cheater_detection(
            counts.design, n=n, reported_yes=yes, confidence=counts.confidence
        )
        total_n, total_yes = sum(n), sum(yes)
        return e.CheaterDetectionEstimate(
            **counts.header,
            **estimate_fields(est.honest_yes),
            n=total_n,
            reported_yes=total_yes,
            reported_yes_rate=total_yes / total_n if total_n else None,
            honest_yes=estimate_fields(est.honest_yes),
            cheaters=estimate_fields(est.cheaters),
            honest_no=estimate_fields(est.honest_no),
            at_boundary=bool(est.at_boundary),
            groups=tuple({"group": i + 1, "n": n[i], "reported_yes": yes[i]} for i in range(2)),
        )

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        return [(question.key, "integer"), (group_column(question.key), "integer")]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {key: int(value["report"]), group_column(key): int(value["group"])}

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        column = metadata_column(key, self.column_type, entry, hint=rr_hint)
        column["rrreg_parameter_order_verified"] = False
        group = {
            "key": group_column(key),
            "type": "integer",
            "text": f"The group (1 or 2) the device drew for {key}; independent of the answer.",
        }
        return [column, group]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
