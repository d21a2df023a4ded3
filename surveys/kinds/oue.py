"""Optimized unary encoding (Wang et al. 2017): a ``choice`` question whose report is one bit per
option — the true option's bit kept with ½, every other bit set with ``q = 1/(e^ε + 1)`` — so its
answer is ``{option: bool, …}`` as for ``multi``, and its estimates are per option as k-RR's.
A kind of its own, selected by its design; its rows are stored as ``choice`` with that design
(stored data and the API contract unchanged). Formulas: docs/formulas.md#oue."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils import formats
from django.utils.translation import gettext as _

from dpcore.central.release_parts import OptionsPart, ReleasePart
from dpcore.local import oue as rr_oue
from surveys.definitions import physical
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    QuestionCounts,
    SlotOf,
    clean_option_reports,
    count_option_reports,
    estimate_fields,
    float_or_none,
    option_column,
    option_export_cells,
    option_labelled_columns,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import linear_form
from surveys.kinds.base import ColumnLabels, QuestionKind, QuestionLike, design_name
from surveys.kinds.choice import ChoiceKind
from surveys.kinds.multi import ANSWERED

if TYPE_CHECKING:
    from surveys.kinds._estimates import ChoiceEstimate


class OUEKind(QuestionKind):
    name: ClassVar[str] = rr_oue.NAME
    # Stored as a choice question with its design (rows and the API contract as they were).
    stored_kind: ClassVar[str] = ChoiceKind.stored_kind
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    has_options: ClassVar[bool] = True
    design_shape: ClassVar[str | None] = "options"
    column_type: ClassVar[str] = "integer"
    #: One option's bit is a yes/no report P(1) = c·π + d: the power calculator plans it.
    power_planning: ClassVar[bool] = True

    def outcome_error(self, key: str) -> str | None:
        return (
            f"{key!r} is an OUE choice question (one bit per option): export the reports (one "
            "column per option) and fit an option's column with its c and d."
        )

    def design_k(self, options: Sequence[str]) -> int | None:
        return len(options)

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        from dpcore.local.designs import build_design

        return build_design(spec, k=k)

    def clean_answer(self, question: Any, value: object) -> Answer:
        """``{option: reported bit}`` with every option present and nothing else (each bit is
        randomized: the true option's may be 0 and several may be 1)."""
        return clean_option_reports(question, value)

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return (ANSWERED, *question.options)

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        count_option_reports(vector, slot, key, value, answered=ANSWERED)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option's share ``(C_v/n − q)/(p − q)`` among the n respondents, projected onto the
        simplex for display (``dpcore.local.oue.estimate_oue``)."""
        from surveys.kinds import _estimates as e

        est = rr_oue.estimate_oue(
            counts.design,
            n=counts.cells[ANSWERED],
            counts=[counts.cells[o] for o in question.options],
            confidence=counts.confidence,
        )
        options = tuple(
            e.OptionEstimate(
                option=option,
                reported=int(o.reported),
                reported_rate=float_or_none(o.reported_rate),
                **estimate_fields(o),
            )
            for option, o in zip(question.options, est.options, strict=True)
        )
        return e.ChoiceEstimate(**counts.header, n=int(est.n), options=options)

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        return [(option_column(question.key, o), "integer") for o in question.options]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return option_export_cells(key, value)

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        return option_labelled_columns(question)

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        columns = {option: option_column(question.key, option) for option in question.options}
        return {"options": list(question.options), "columns": columns}

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One 1/0 column per option: the option's reported bit, ``P(1) = c·f + d``."""
        design = entry["design"]
        return [
            {
                "key": column,
                "type": "integer",
                "kind": f"{self.name}_option",
                "question": key,
                "option": option,
                "text": f"{entry['text']} — {option}: the REPORTED bit for this option (1/0).",
                "design": design,
            }
            for option, column in entry["columns"].items()
        ]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def option_fields(self, question: PageQuestion) -> list[tuple[str, str]]:
        # A radio pair per option, named "q-<key>.<index>" as multi's (keys hold no ".").
        field = _fields.field_name(question)
        return [(option, f"{field}.{i}") for i, option in enumerate(question.options)]

    def form_answer(self, question: PageQuestion, data: Mapping[str, Any]) -> Any:
        reports = {option: data.get(name) for option, name in self.option_fields(question)}
        given = {o: v for o, v in reports.items() if isinstance(v, bool)}
        return given or None  # some options left at "No answer": refused as missing options

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        # One YES/NO radio pair per option, as multi's (every post of it has the same length).
        out: FormFields = {}
        for option, name in self.option_fields(question):
            shown = labels.get(option, option)
            required = _("“%(option)s”: %(message)s") % {
                "option": shown,
                "message": _fields.tick_message(),
            }
            out[name] = _fields.yes_no_radios(required=required, label=shown)
        return out

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        """A coin for the true option (YES on heads: ½), then for each other option the device
        whose faces give ``q`` exactly (two coins at ε = ln 3, a die at ln 2 or ln 5); else the
        question needs JavaScript."""
        design = _protocol.question_design_or_none(question)
        share = rr_oue.device_share(design.other_probability) if design is not None else None
        if share is None:
            reason = _(
                "It sets each other option with probability %(q)s, which coins or dice cannot "
                "reproduce exactly, so this question needs JavaScript."
            ) % {"q": formats.number_format(design.other_probability if design else 0, 3)}
            return _protocol.PhysicalProtocol(False, reason=reason)
        return _protocol.PhysicalProtocol(True, _device_steps(share))

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        design = designs.question_design(question)
        k = len(question.options or [])
        q = design.other_probability
        ratio = _deniability.ratio_of(design.keep_probability * (1 - q), (1 - 0.5) * q)
        post = _deniability.posterior(ratio, 1.0 / k)
        how = _(
            "Every option gets its own draw: your true answer's box is ticked half of the time; "
            "each other box is ticked %(q)s of the time, whatever your true answer."
        ) % {"q": _deniability.fraction(q)}
        text = _(
            "Whatever boxes are recorded, they are at most %(times)s as likely from someone whose "
            "true answer is one option as from someone whose true answer is any other. Someone "
            "who thought all %(k)s options equally likely for you would now think it at most "
            "%(percent)s likely that your true answer is any one of them."
        ) % {"times": _deniability.times(ratio), "k": k, "percent": _deniability.percent(post)}
        report = {"likelihood_ratio": ratio, "reference_prior": 1.0 / k, "posterior": post}
        return {
            "randomizer": {
                "kind": "spinner",
                "button": _("Draw the boxes"),
                "how": how,
                "sectors": [],
            },
            "handling_text": _(
                "Randomized before it is sent, one box per option: only the recorded boxes are "
                "sent, and nobody who sees them can tell which option is your true answer."
            ),
            "reports": {"any": {**report, "text": text}},
        }

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        return {"options": list(question.options)}

    def chart_rows(self, estimate: ChoiceEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        e = estimate
        return [_chart_rows.row(base, o.option, e.n, o, "reported_rate") for o in e.options]

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """k histograms (bit set, not set), one per option, each Δ = 1: a respondent's report
        moves one cell of every option, as a multi question's
        (:func:`dpcore.central.sensitivity.multi_sensitivities`)."""
        c, d = linear_form(question)
        return OptionsPart(tuple(question.options or ()), ANSWERED, c=c, d=d)

    def release_note(self, question: QuestionLike) -> str:
        return f": a bit count per option; counts {len(question.options or [])} times"

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` with ``oue epsilon=…``."""
        named = (row.design or {}).get("name") == self.name
        return row.type_word == "select_one" and named

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return xls.options_and_design(self.stored_kind, row)

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.option_list("select_one", question.key, question.options)

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        return {
            "key": "brand",
            "text": "Which brand do you use?",
            "kind": self.stored_kind,
            "options": ["A", "B", "C", "D", "E"],
            "design": {"name": self.name, "epsilon": 1.0986122886681098},
        }

    def example_answer(self) -> object:
        return {"A": True, "B": False, "C": False, "D": True, "E": False}


def _device_steps(share: Fraction) -> list[str]:
    """The no-JS steps: a coin for the true option, the device of ``share`` for each other."""
    faces = share.denominator
    device = next(d for d in physical.DEVICES if d[0] % faces == 0)
    n, instruction, names = device
    m = share.numerator * (n // faces)
    chosen = [_(name) for name in names[:m]]
    label = f"{chosen[0]}–{chosen[-1]}" if n in (6, 36) and m > 1 else _(" or ").join(chosen)
    return [
        _("Decide each option in turn, with a new flip or roll each time, where nobody can see."),
        _("Your true answer: flip a coin. Heads: tick YES for it. Tails: tick NO."),
        _(
            "Every other option: %(instruction)s %(faces)s: tick YES for that option. Anything "
            "else: tick NO."
        )
        % {"instruction": _(instruction), "faces": label[:1].upper() + label[1:]},
    ]
