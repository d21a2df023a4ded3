"""The ``multi`` question kind."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dpcore import local as rr
from dpcore.central.release_parts import OptionsPart, ReleasePart
from dpcore.local import designs as rr_designs
from surveys.definitions import physical
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    QuestionCounts,
    SlotOf,
    binary_rr_hint,
    clean_option_reports,
    count_option_reports,
    estimate_fields,
    option_column,
    option_export_cells,
    option_labelled_columns,
    options_entry,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import linear_form
from surveys.kinds.base import ColumnLabels, QuestionKind, QuestionLike
from surveys.kinds.cheater_detection import CheaterDetectionKind

if TYPE_CHECKING:
    from surveys.kinds._estimates import MultiEstimate


#: The cell counting a multi question's answers; its other cells are its options (YES reports).
ANSWERED = ""
#: The designs a multi question may use: the registry's that serve each option (one report
#: P(yes) = c·π + d and a coin/spinner randomizer); a second statement or a drawn group cannot.
DESIGN_NAMES: tuple[str, ...] = tuple(
    entry.name for entry in rr_designs.registered() if rr_designs.EACH_OPTION in entry.serves
)


class MultiKind(QuestionKind):
    name: ClassVar[str] = "multi"
    stored_kind: ClassVar[str] = "multi"
    builder_title: ClassVar[str] = "Sensitive multi-select (randomized, one yes/no per option)"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    comparison: ClassVar[str | None] = "per_option"

    def outcome_error(self, key: str) -> str | None:
        return (
            f"{key!r} is a multi question (one report per option): regression of one "
            "option is not supported. Export the reports (one column per option, "
            "docs/exports.md#multi) and fit that option's column with its design."
        )

    has_options: ClassVar[bool] = True
    #: The yes/no designs it accepts: one report model P(yes) = c·π + d and a coin/spinner
    #: randomizer. Crosswise (no randomizer: a second statement per option) and cheating
    #: detection (a group drawn per report) are refused (surveys.inputs.design_specs).
    design_names: ClassVar[tuple[str, ...] | None] = DESIGN_NAMES
    design_per_option: ClassVar[bool] = True
    design_shape: ClassVar[str | None] = rr_designs.EACH_OPTION

    def default_design_spec(self) -> dict[str, Any] | None:
        return dict(rr.DEFAULT_YES_NO_SPEC)

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        if spec.get("name") == CheaterDetectionKind.name:
            raise rr.DesignError(
                "name", f"{CheaterDetectionKind.name} is not available for multi questions"
            )
        return rr.design_from_spec(spec)

    def clean_answer(self, question: Any, value: object) -> Answer:
        """``{option: reported bool}`` with every option present and nothing else (each
        option's report was randomized on its own; a missing one is not "no")."""
        return clean_option_reports(question, value)

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return (ANSWERED, *question.options)

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        count_option_reports(vector, slot, key, value, answered=ANSWERED)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option separately: its YES reports among the n answers, debiased by the shared
        design exactly as a yes/no question's (``dpcore.local.estimate_binary``)."""
        from surveys.kinds import _estimates as e

        design = counts.design
        n = counts.cells[ANSWERED]
        options = []
        for option in question.options:
            est = rr.estimate_binary(
                design, n=n, reported_yes=counts.cells[option], confidence=counts.confidence
            )
            options.append(
                e.MultiOptionEstimate(
                    option=option,
                    n=int(est.n),
                    reported=int(est.reported_yes),
                    reported_rate=None
                    if est.reported_yes_rate is None
                    else float(est.reported_yes_rate),
                    **estimate_fields(est),
                )
            )
        return e.MultiEstimate(
            **counts.header,
            n=n,
            epsilon_per_option=counts.epsilon_per_option,
            options=tuple(options),
        )

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        return [(option_column(question.key, o), "integer") for o in question.options]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return option_export_cells(key, value)

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        """One yes/no report per option, labelled with the question's text and the option."""
        return option_labelled_columns(question)

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        columns = {option: option_column(question.key, option) for option in question.options}
        return {**options_entry(question), "columns": columns}

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One 1/0 column per option, with the shared design (each option is its own yes/no
        report through it) and its ``rrreg`` call."""
        out = []
        for option, column in entry["columns"].items():
            design = {
                k: v for k, v in entry["design"].items() if k not in ("options", "applies_to")
            }
            design["epsilon"] = entry["design"].get("epsilon_per_option")
            item: dict[str, Any] = {
                "key": column,
                "type": "integer",
                "kind": f"{self.name}_option",
                "question": key,
                "option": option,
                "text": f"{entry['text']} — {option}: the REPORTED answer for this option (1/0).",
                "design": design,
            }
            hint = binary_rr_hint(column, design)
            if hint:
                item["rrreg"] = hint
            out.append(item)
        return out

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def option_fields(self, question: PageQuestion) -> list[tuple[str, str]]:
        # A radio pair per option, named "q-<key>.<index>" (keys hold no ".").
        field = _fields.field_name(question)
        return [(option, f"{field}.{i}") for i, option in enumerate(question.options)]

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        # One YES/NO radio pair per option (padded like yes/no, so every post of the question
        # has the same length; a ticked-or-absent checkbox would not).
        out: FormFields = {}
        for option, name in self.option_fields(question):
            shown = labels.get(option, option)
            required = _("“%(option)s”: %(message)s") % {
                "option": shown,
                "message": _fields.tick_message(),
            }
            out[name] = _fields.yes_no_radios(required=required, label=shown)
        return out

    def form_answer(self, question: PageQuestion, data: Mapping[str, Any]) -> Any:
        reports = {option: data.get(name) for option, name in self.option_fields(question)}
        given = {o: v for o, v in reports.items() if isinstance(v, bool)}
        return given or None  # some options left at "No answer": refused as missing options

    def page_data(self, question: PageQuestion) -> dict[str, Any]:
        # Each option is one report through the design (the page draws once per option).
        return {"epsilon_per_option": designs.option_epsilon(question)}

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        """Multi-select without JavaScript: the yes/no design's device once per option, afresh
        for each (independent draws, as the browser makes them), and YES/NO ticked per option."""
        design = _protocol.question_design_or_none(question)
        realisation = physical.physical_realisation(design) if design is not None else None
        if realisation is None:
            return _protocol.needs_js_protocol()
        k = len(question.options)
        steps = [
            _(
                "Do this for each of the %(k)s options in turn, with a new flip (or roll) each "
                "time, where nobody can see it."
            )
            % {"k": k}
        ]
        if _protocol.is_coin_spec(design.to_spec()):
            steps += [
                _("Flip a coin. Tails: tick your true answer for that option."),
                _(
                    "Heads: flip again. Heads: tick YES for that option. Tails: tick NO. "
                    "(Whatever your true answer is.)"
                ),
            ]
            return _protocol.PhysicalProtocol(True, steps)
        steps.append(_(realisation.instruction))
        rows = _protocol.rows(realisation, _MULTI_ACTIONS)
        return _protocol.PhysicalProtocol(True, [*steps, *rows])

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        design = designs.question_design(question)
        randomizer = _deniability.randomizer(question.options or [], design)
        return {
            "randomizer": _multi_randomizer(question, randomizer),
            "handling_text": str(MULTI_HANDLING_TEXT),
            "reports": _multi_reports(design),
        }

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        return {"options": list(question.options)}

    def chart_rows(self, estimate: MultiEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        # One yes/no estimate per option, each with its own n.
        return [_chart_rows.row(base, o.option, o.n, o, "reported_rate") for o in estimate.options]

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """k histograms (YES_i, NO_i), one per option, each Δ = 1: a respondent moves one cell of
        every option (:func:`dpcore.central.sensitivity.multi_sensitivities`)."""

        c, d = linear_form(question)
        return OptionsPart(tuple(question.options or ()), ANSWERED, c=c, d=d)

    def release_note(self, question: QuestionLike) -> str:
        return f": a yes/no count per option; counts {len(question.options or [])} times"

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_multiple`` with a yes/no design applied to each option."""
        return row.type_word == "select_multiple" and row.design_serves(self.design_shape)

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return xls.options_and_design(self.stored_kind, row)

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.option_list("select_multiple", question.key, question.options)

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question."""
        return {
            "key": "used",
            "text": "Which have you used?",
            "kind": self.stored_kind,
            "options": ["Cannabis", "Cocaine", "Ecstasy"],
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return {"Cannabis": True, "Cocaine": False, "Ecstasy": True}


_MULTI_ACTIONS = {
    physical.TRUTH: gettext_lazy("tick your true answer for that option"),
    physical.YES: gettext_lazy("tick YES for that option, whatever your true answer"),
    physical.NO: gettext_lazy("tick NO for that option, whatever your true answer"),
    physical.OPPOSITE: gettext_lazy("tick the opposite of your true answer for that option"),
}


def _multi_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """A multi question's words per box: ``yes`` = a ticked box, ``no`` = an empty one. Each
    box is its own report through the shared design, so its ratio is the yes/no one."""
    out = _deniability.yes_no_reports(design)
    for report in ("yes", "no"):
        ratio = out[report]["likelihood_ratio"]
        numbers = {
            "times": _deniability.times(math.inf if ratio is None else ratio),
            "percent": _deniability.percent(out[report]["posterior"]),
        }
        out[report]["text"] = (
            _(
                "Each box is randomized on its own. A ticked box is %(times)s as likely from "
                "someone for whom that option is true as from someone for whom it is false, so "
                "nobody can tell whether a ticked box is your true answer. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that the option "
                "is true for you."
            )
            if report == "yes"
            else _(
                "Each box is randomized on its own. An empty box is %(times)s as likely from "
                "someone for whom that option is false as from someone for whom it is true, so "
                "nobody can tell whether an empty box is your true answer. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that the option "
                "is false for you."
            )
        ) % numbers
    return out


MULTI_HANDLING_TEXT = gettext_lazy(
    "Randomized before it is sent, each box separately: only the recorded boxes are sent, and "
    "nobody who sees a box can tell whether it is your true answer or one picked by chance."
)
_MULTI_SECTORS = {"yes": gettext_lazy("Ticked"), "no": gettext_lazy("Empty")}


def _multi_randomizer(q: PageQuestion, randomizer: dict[str, Any]) -> dict[str, Any]:
    """The yes/no device, run once per option: said in a sentence before the device's own
    words (so no translated sentence is ever edited), YES/NO sectors named Ticked/Empty."""
    k = len(q.options or [])
    how = _(
        "Each of the %(k)s options is decided separately, with its own draw, as if it were a "
        "yes/no question about that option: YES ticks its box, NO leaves it empty."
    ) % {"k": k}
    return {
        **randomizer,
        "how": f"{how} {randomizer['how']}",
        "sectors": [
            {**sector, "label": str(_MULTI_SECTORS.get(sector["branch"], sector["label"]))}
            for sector in randomizer["sectors"]
        ],
        "button": _("Flip the coins for each option")
        if randomizer["kind"] == "coins"
        else _("Spin the spinner for each option"),
    }
