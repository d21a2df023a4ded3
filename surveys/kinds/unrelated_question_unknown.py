"""The unrelated question with an *unknown* innocuous prevalence (Greenberg et al. 1969; RRreg's
``UQTunknown``): a yes/no question whose device draws one of two groups and then, with that
group's p, asks the sensitive question, else the innocuous one, which the respondent answers
themselves (no chance decides it). Its answer is ``{group, report}`` like cheating detection's, so
it takes that kind's grouped hooks (cells, answers, exports, form) and states its own estimate,
words, preview and release. Stored as ``yes_no`` with its design. Formulas and the ε decision:
docs/formulas.md#unrelated-question-unknown."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from dpcore import local as rr
from dpcore.central.release_parts import HistogramPart, ReleasePart
from dpcore.local.designs import unrelated_question_unknown as uqt
from dpcore.stats import z_value
from surveys.kinds import _chart_rows, _deniability, _protocol
from surveys.kinds import _design as designs
from surveys.kinds._data import QuestionCounts, estimate_fields, metadata_column, r_name
from surveys.kinds._estimates import BinaryEstimate
from surveys.kinds._fields import PageQuestion
from surveys.kinds._release import question_cells
from surveys.kinds.base import QuestionLike
from surveys.kinds.cheater_detection import CheaterDetectionKind, group_column

#: Said wherever its ε is shown: the ε holds under the stated bounds, and only if the researcher
#: cannot learn the respondent's innocuous answer (with it known, a report is one-sided: ε = ∞).
ASSUMPTION = gettext_noop(
    "This protection holds only if the share answering yes to the other question lies within the "
    "stated bounds and the researcher cannot find out your answer to it."
)
LABEL = "has the trait (estimated prevalence)"
INNOCUOUS_LABEL = "other question: yes (estimated prevalence)"


@dataclass(frozen=True)
class UnknownUQTEstimate(BinaryEstimate):
    """``estimate`` is π; ``innocuous`` the innocuous prevalence's {estimate, …, ci_high};
    ``groups`` the per-group n and reported yes. The API shows it as a yes/no entry (π)."""

    innocuous: dict[str, float | None]
    at_boundary: bool
    groups: tuple[dict[str, int], ...]


def rr_hint(key: str, design: Mapping[str, Any]) -> str:
    """RRreg's call: ``p = c(p₁, p₂)`` (the sensitive question's probability in each group) and
    the group column (1/2), as ``RRuni(model = "UQTunknown")`` documents them."""
    g1, g2 = design["groups"]
    return (
        f'RRreg::RRuni(response = {r_name(key)}, data = reports, model = "UQTunknown", '
        f'p = c({g1["p"]!r}, {g2["p"]!r}), group = reports[["{group_column(key)}"]])'
    )


class UnknownUQTKind(CheaterDetectionKind):
    name: ClassVar[str] = uqt.NAME
    #: Its ε assumes the innocuous answer unknown to the reader (as crosswise's): left out of the
    #: shuffled report file, said wherever ε is shown.
    paired: ClassVar[bool] = True
    translated_design_fields: ClassVar[tuple[str, ...]] = ("innocuous_text",)

    def fit(self, question: Any, counts: QuestionCounts) -> dict[str, Any] | None:
        """No goodness-of-fit test yet: cheater detection's G² (π, β, γ ≥ 0) is not this model's
        (its region is the unit square of π and the innocuous prevalence)."""
        return None

    def compare_groups(
        self, question: Any, entries: Sequence[tuple[str, Mapping[str, Any]]], confidence: float
    ) -> dict[str, Any] | None:
        """No per-parameter comparison: cheater detection's compares its π and γ."""
        return None

    def outcome_error(self, key: str) -> str | None:
        return (
            "An unrelated-question (unknown prevalence) question has two report models, one per "
            "group; regression needs one."
        )

    def design_notes(self) -> dict[str, Any]:
        return {"assumption": ASSUMPTION}

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        return uqt.design_from_spec(spec)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """π from the per-group counts (``estimate_unrelated_question_unknown``); the groups'
        n and reported yes beside it, and the innocuous prevalence as ``innocuous``."""
        cells = counts.cells
        n = [cells[f"g{i}_yes"] + cells[f"g{i}_no"] for i in (1, 2)]
        yes = [cells[f"g{i}_yes"] for i in (1, 2)]
        est = uqt.estimate_unrelated_question_unknown(
            counts.design, n=n, reported_yes=yes, confidence=counts.confidence
        )
        total_n, total_yes = sum(n), sum(yes)
        return UnknownUQTEstimate(
            **counts.header,
            **estimate_fields(est.prevalence),
            n=total_n,
            reported_yes=total_yes,
            reported_yes_rate=total_yes / total_n if total_n else None,
            innocuous=estimate_fields(est.innocuous_prevalence),
            at_boundary=bool(est.at_boundary),
            groups=tuple({"group": i + 1, "n": n[i], "reported_yes": yes[i]} for i in range(2)),
        )

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        column = metadata_column(key, self.column_type, entry, hint=rr_hint)
        group = {
            "key": group_column(key),
            "type": "integer",
            "text": f"The group (1 or 2) the device drew for {key}; independent of the answer.",
        }
        return [column, group]

    @property
    def template_name(self) -> str:
        # The yes/no partial: the true answer is a yes or a no; the page module adds the other
        # question's buttons (static/js/respond/kinds/unrelated_question_unknown.js).
        return "respond/kinds/yes_no.html"

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        # No coin or die is offered yet: the page needs JavaScript (as a design no device runs).
        return _protocol.needs_js_protocol()

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        return _protection(designs.question_design(question))

    def chart_rows(self, estimate: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
        """π (with the overall reported YES rate) and the innocuous prevalence."""
        row = _chart_rows.row(base, LABEL, estimate.n, estimate, "reported_yes_rate")
        row["at_boundary"] = estimate.at_boundary
        other = _chart_rows.row(
            base, INNOCUOUS_LABEL, estimate.n, _Fields(estimate.innocuous), None
        )
        return [row, other]

    def design_preview(
        self,
        design: Any,
        *,
        planned_n: int,
        prior: float | None,
        confidence: float,
        half_width: float,
    ) -> dict[str, Any] | None:
        """ε (the larger group's, under the bounds), each group's, the planned half-width of π
        with ``planned_n/2`` per group at the prior and the bounds' midpoint, and the respondents
        per group for ±``half_width`` (docs/formulas.md#unrelated-question-unknown)."""
        shown = 0.1 if prior is None else prior
        low = design.prevalence_bounds[0]
        ratio = max((p + (1 - p) * low) / ((1 - p) * low) for p in design.p)
        per_group = max(1, planned_n // 2)
        unit = _unit_variance(design, shown)
        z = z_value(confidence)
        posterior = _deniability.posterior(ratio, shown)
        return {
            "epsilon": designs.accounted_epsilon(design),
            "private": True,
            "design": dict(design.to_spec()),
            "group_epsilons": [float(e) for e in design.group_epsilons],
            "deniability": posterior,
            "revealing_report": True,
            "revealing_deniability": posterior,
            "prior": float(shown),
            "planned_n": planned_n,
            "planned_n_per_group": planned_n // 2,
            "planned_half_width": z * math.sqrt(unit / per_group),
            "planned_half_width_direct": rr.planned_half_width_direct(
                n=planned_n, prior=prior, confidence=confidence
            ),
            "sample_size_per_group_for_5pp": math.ceil(z * z * unit / half_width**2),
            "sample_size_for_5pp": 2 * math.ceil(z * z * unit / half_width**2),
            "sample_size_direct_for_5pp": rr.sample_size_direct(
                half_width=half_width, prior=prior, confidence=confidence
            ),
        }

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """Its four cells (group × report) as ONE histogram (each respondent is in one group and
        gives one report: Δ = 1), released as noisy counts with each cell's share; π is for the
        analyst to compute from them (docs/formulas.md#unrelated-question-unknown)."""
        return HistogramPart(question_cells(question), c=1.0, d=0.0, share=None)

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        spec = {
            "name": self.name,
            "groups": [{"p": 0.5}, {"p": 0.1}],
            "innocuous_text": "I was born in the first half of the year.",
            "innocuous_prevalence_min": 0.4,
            "innocuous_prevalence_max": 0.6,
        }
        return {
            "key": "uqtu",
            "text": "I have taken a bribe.",
            "kind": self.stored_kind,
            "design": spec,
        }


class _Fields:
    """A dict of estimate fields read as attributes (the chart row reads attributes)."""

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)


def _unit_variance(design: Any, prevalence: float) -> float:
    """``n_g·Var π̂`` with ``n_g`` per group, at π and the bounds' midpoint u:
    ``[(1 − p₂)²λ₁(1 − λ₁) + (1 − p₁)²λ₂(1 − λ₂)]/(p₁ − p₂)²``."""
    u = sum(design.prevalence_bounds) / 2
    (p1, p2), (l1, l2) = design.p, design.report_probabilities(prevalence, u)
    return ((1 - p2) ** 2 * l1 * (1 - l1) + (1 - p1) ** 2 * l2 * (1 - l2)) / (p1 - p2) ** 2


def _protection(design: Any) -> dict[str, Any]:
    """Words true for the design: the group (drawn first, ½ each) is sent with the report; in
    group g the device asks the sensitive question with p_g, else the other one, which the
    respondent answers. The page shows the drawn group's spinner."""
    text = design.innocuous_text
    groups: list[dict[str, Any]] = []
    for i, p in enumerate(design.p, start=1):
        half = (1.0 - p) / 2  # the other question's slice, shown halved by its two answers
        sectors = [
            ("truth", _("Your true answer"), p),
            ("innocuous-yes", _("The other question"), half),
            ("innocuous-no", _("The other question"), half),
        ]
        groups.append(
            {
                "kind": "spinner",
                "button": _("Spin the spinner"),
                "how": _(
                    "Group %(n)s: %(truth)s of the time you answer this question; otherwise you "
                    "answer the other question: “%(other)s”"
                )
                % {"n": i, "truth": _deniability.fraction(p), "other": text},
                "sectors": [
                    {"branch": b, "label": lab, "share": x, "percent": _deniability.percent(x)}
                    for b, lab, x in sectors
                ],
            }
        )
    how = " ".join(
        [
            _(
                "First a fair coin puts you in group 1 or group 2 (it is sent with your answer "
                "and says nothing about it); then that group's spinner decides which question "
                "you answer."
            ),
            *(str(g["how"]) for g in groups),
            _(ASSUMPTION),
        ]
    )
    low, high = design.prevalence_bounds
    worst = {
        "yes": max((p + (1 - p) * low) / ((1 - p) * low) for p in design.p),
        "no": max((1 - (1 - p) * high) / ((1 - p) * (1 - high)) for p in design.p),
    }
    reports = _deniability.two_group_reports(worst)
    prompt = _("First answer the other question for yourself (only one answer is sent): “%(q)s”")
    return {
        "randomizer": {**groups[0], "how": how, "groups": groups},
        "reports": reports,
        "innocuous_prompt": prompt % {"q": text},
    }
