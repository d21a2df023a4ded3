"""Cheating detection (Clark & Desharnais 1998): a yes/no question whose device draws one of two
groups and reports under that group's forced-response design. Its answer is ``{group, report}``,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys import designs, physical
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds.base import QuestionKind, QuestionLike, design_name

if TYPE_CHECKING:
    from surveys.selectors.estimates import CheaterDetectionEstimate

#: Cheating detection's three shares, as the table labels them (π, γ, β).
CHEATER_LABELS = (
    ("honest_yes", "honest yes (π)"),
    ("cheaters", "cheaters: “no” whatever the device said (γ)"),
    ("honest_no", "honest no (β)"),
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

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──


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
    reports = {}
    for report, ratio in worst.items():
        other = "no" if report == "yes" else "yes"
        post = _deniability.posterior(ratio, 0.5)
        reports[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": post,
            "text": _(
                "In either group, a %(report)s report is at most %(times)s as likely from "
                "someone whose true answer is %(answer)s as from someone whose true answer is "
                "%(other)s. Someone who thought it 50–50 beforehand would now think it at most "
                "%(percent)s likely that your true answer is %(answer)s."
            )
            % {
                "report": _deniability.yes_word(report),
                "times": _deniability.times(ratio),
                "answer": _deniability.answer_word(report),
                "other": _deniability.answer_word(other),
                "percent": _deniability.percent(post),
            },
        }
    randomizer = {**groups[0], "how": how, "groups": groups}
    return {"randomizer": randomizer, "reports": reports}
