"""The ``multi`` question kind."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dpcore import local as rr
from surveys import designs, physical
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds.base import QuestionKind

if TYPE_CHECKING:
    from surveys.selectors.estimates import MultiEstimate


class MultiKind(QuestionKind):
    name: ClassVar[str] = "multi"
    stored_kind: ClassVar[str] = "multi"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

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

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──


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
