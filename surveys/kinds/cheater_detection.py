"""Cheating detection (Clark & Desharnais 1998): a yes/no question whose device draws one of two
groups and reports under that group's forced-response design. Its answer is ``{group, report}``,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from dpcore.central.release_parts import CheaterPart, ReleasePart
from dpcore.local import cheater as rr_cheater
from dpcore.local import compare
from surveys.definitions import physical
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _fit, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    QuestionCounts,
    SlotOf,
    estimate_fields,
    metadata_column,
    r_name,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import question_cells
from surveys.kinds.base import YES_NO_VALUES, ColumnLabels, QuestionKind, QuestionLike, design_name
from surveys.kinds.yes_no import YesNoKind

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
    """RRreg's call for the report column (1/0) and the group column (1/2). RRreg's p for CDMsym:
    c(forced yes in group 1, forced no in group 1, forced yes in group 2, forced no in group 2),
    the order verified against RRreg itself (issue 26: a run of this line in R reproduced our
    estimates). ``response`` is the bare column name, evaluated inside ``data``."""
    g1, g2 = design["groups"]
    return (
        f'RRreg::RRuni(response = {r_name(key)}, data = reports, model = "CDMsym", '
        f"p = c({g1['p_yes']!r}, {g1['p_no']!r}, {g2['p_yes']!r}, {g2['p_no']!r}), "
        f'group = reports[["{group_column(key)}"]])'
    )


if TYPE_CHECKING:
    from surveys.kinds._estimates import CheaterDetectionEstimate

#: Cheating detection's three shares, as the table labels them (π, γ, β).
CHEATER_LABELS = (
    ("honest_yes", "honest yes (π)"),
    ("cheaters", "cheaters: “no” whatever the device said (γ)"),
    ("honest_no", "honest no (β)"),
)


class CheaterDetectionKind(QuestionKind):
    name: ClassVar[str] = "cheater_detection"
    # Stored as a yes/no question with its design (rows and the API contract as they were).
    stored_kind: ClassVar[str] = YesNoKind.stored_kind
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

    def fit(self, question: Any, counts: QuestionCounts) -> dict[str, Any] | None:
        """G² of π, β, γ ≥ 0 against the unconstrained fit (exactly identified: only the simplex
        can be contradicted; ``dpcore.local.cheater.fit_cheater_detection``)."""
        cells = counts.cells
        result = rr_cheater.fit_cheater_detection(
            counts.design,
            n=[cells[f"g{i}_yes"] + cells[f"g{i}_no"] for i in (1, 2)],
            reported_yes=[cells[f"g{i}_yes"] for i in (1, 2)],
        )
        return _fit.fit_body(result, "π, β, γ ≥ 0 (honest yes, honest no, cheaters)")

    def compare_groups(
        self, question: Any, entries: Sequence[tuple[str, Mapping[str, Any]]], confidence: float
    ) -> dict[str, Any] | None:
        """π and γ across the groups of a breakdown (docs/analysis.md#comparisons): per parameter
        the Wald test of equality (χ² on G − 1 df) of the unbiased moment estimates and their
        SEs, and each group's difference from the first with an estimate (Holm over groups)."""
        tests, rows, reference = [], [], None
        for name in ("honest_yes", "cheaters"):
            values = [(g, e[name]["estimate_unclipped"], e[name]["std_error"]) for g, e in entries]
            test = compare.wald_equality([(v, se) for _, v, se in values])
            tests.append({"parameter": name, **dataclasses.asdict(test)})
            reference, diffs = compare.estimate_differences(values, confidence=confidence)
            rows += [{**dataclasses.asdict(d), "parameter": name} for d in diffs]
        return {
            "reference": reference,
            "test": "equal_parameters_wald",
            "statistic": None,
            "df": None,
            "p_value": None,
            "tests": tests,
            "differences": rows,
        }

    def fit_reason(self) -> str:
        return _(
            "no mix of honest YES, honest NO and cheaters (who say NO whatever the device says) "
            "gives the two groups' shares of YES. Perhaps some respondents say YES whatever the "
            "device says, or did not follow their group's device."
        )

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        return [(question.key, "integer"), (group_column(question.key), "integer")]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {key: int(value["report"]), group_column(key): int(value["group"])}

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        group = f"Group the device drew for {question.key} (1 or 2)"
        return {
            question.key: ColumnLabels(question.text, dict(YES_NO_VALUES)),
            group_column(question.key): ColumnLabels(group, {1: "Group 1", 2: "Group 2"}),
        }

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        column = metadata_column(key, self.column_type, entry, hint=rr_hint)
        column["rrreg_parameter_order_verified"] = True
        group = {
            "key": group_column(key),
            "type": "integer",
            "text": f"The group (1 or 2) the device drew for {key}; independent of the answer.",
        }
        return [column, group]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        """Radios of group × report, posted as ``{"group", "report"}``."""
        field = _fields.radios(
            [(value, str(label)) for value, label in CHEATER_CHOICES],
            required=_("Tick your group and the answer your coin or die told you."),
            coerce=lambda v: {"group": int(v[1]), "report": v.endswith("yes")},
            label=question.text,
        )
        return {_fields.field_name(question): field}

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        """A coin for the group (heads 1, tails 2: ½ each), then that group's coins or dice
        (``physical.cheater_realisation``); the group is ticked with the report."""
        design = _protocol.question_design_or_none(question)
        realisations = physical.cheater_realisation(design) if design is not None else None
        if realisations is None:
            return _protocol.needs_js_protocol()
        steps = [
            _("Flip a coin where nobody can see it. Heads: you are in group 1. Tails: group 2.")
        ]
        for i, realisation in enumerate(realisations, start=1):
            rows = " ".join(_protocol.rows(realisation))
            steps.append(
                _("Group %(n)s only: %(instruction)s %(rows)s")
                % {"n": i, "instruction": _(realisation.instruction), "rows": rows}
            )
        steps.append(_("Tick the box with your group and the answer you ended up with."))
        return _protocol.PhysicalProtocol(True, steps)

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        return _cheater_protection(designs.question_design(question))

    regression_outcome: ClassVar[bool] = True  # refused by its design (not linear)

    def chart_rows(
        self, estimate: CheaterDetectionEstimate, base: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """π, γ and β, one row each; the first carries the overall reported YES rate and the
        note ``at_boundary`` (the ML estimate on the edge of the simplex: intervals less
        reliable)."""
        e, rows = estimate, []
        for name, label in CHEATER_LABELS:
            source = SimpleNamespace(**getattr(e, name), reported_yes_rate=e.reported_yes_rate)
            rate = "reported_yes_rate" if name == "honest_yes" else None
            row = _chart_rows.row(base, label, e.n, source, rate)
            row["at_boundary"] = e.at_boundary
            rows.append(row)
        return rows

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """Its four cells (group × report) are ONE histogram: the group is drawn on the device,
        so each respondent sits in exactly one group and gives one report — Δ = 1, not one per
        group (:mod:`dpcore.central.cheater`)."""
        return CheaterPart(question_cells(question), design=designs.question_design(question))

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` over a yes/no list with ``cheater_detection groups=a:b|c:d``."""
        named = (row.design or {}).get("name") == self.name
        return row.type_word == "select_one" and row.yes_no_list and named

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return {"kind": self.stored_kind, "design": dict(row.design or {})}

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.yes_no_cells(YesNoKind.stored_kind)

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question (the yes/no kind under this design)."""
        groups = [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]
        return {
            "key": "cdm",
            "text": "I have taken a bribe.",
            "kind": self.stored_kind,
            "design": {"name": self.name, "groups": groups},
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return {"group": 2, "report": False}


CHEATER_CHOICES = [
    ("g1_yes", gettext_lazy("Group 1: YES")),
    ("g1_no", gettext_lazy("Group 1: NO")),
    ("g2_yes", gettext_lazy("Group 2: YES")),
    ("g2_no", gettext_lazy("Group 2: NO")),
]


def _cheater_protection(design: Any) -> dict[str, Any]:
    """Words true for the cheating-detection design: the group (drawn first, ½ each, independent
    of the answer) is sent with the report, so what a report reveals is the larger of the two
    groups' likelihood ratios — the respondent's ε is the larger group ε. The page shows the
    drawn group's spinner (``randomizer.groups[g − 1]``, forced-response sectors)."""
    groups: list[dict[str, Any]] = []
    for i, g in enumerate(design.groups, start=1):
        sectors = [("truth", _("Your true answer"), g.p_truth), ("yes", _("YES"), g.p_yes)]
        sectors.append(("no", _("NO"), g.p_no))
        groups.append(
            {
                "kind": "spinner",
                "button": _("Spin the spinner"),
                "how": _(
                    "Group %(n)s: %(truth)s of the time your true answer is recorded; %(yes)s "
                    "YES and %(no)s NO, whatever your true answer."
                )
                % {
                    "n": i,
                    "truth": _deniability.fraction(g.p_truth),
                    "yes": _deniability.fraction(g.p_yes),
                    "no": _deniability.fraction(g.p_no),
                },
                "sectors": [
                    {
                        "branch": b,
                        "label": label,
                        "share": x,
                        "percent": _deniability.percent(x),
                    }
                    for b, label, x in sectors
                ],
            }
        )
    how = (
        _(
            "First a fair coin puts you in group 1 or group 2 (it is sent with your answer and "
            "says nothing about it); then that group's spinner decides."
        )
        + " "
        + " ".join(str(grp["how"]) for grp in groups)
    )
    worst = {
        "yes": max((1.0 - g.p_no) / g.p_yes for g in design.groups),
        "no": max((1.0 - g.p_yes) / g.p_no for g in design.groups),
    }
    reports = _deniability.two_group_reports(worst)
    randomizer = {**groups[0], "how": how, "groups": groups}
    return {"randomizer": randomizer, "reports": reports}
