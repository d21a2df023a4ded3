"""The ``choice`` question kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils import formats
from django.utils.translation import gettext as _

from dpcore import local as rr
from dpcore.central.release_parts import ReleasePart
from dpcore.local.designs import k_rr
from dpcore.local.designs.k_rr import ENTRY as KRR_ENTRY
from surveys.definitions import physical
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    QuestionCounts,
    clean_option,
    estimate_fields,
    float_or_none,
    options_entry,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import histogram_part
from surveys.kinds.base import ColumnLabels, QuestionKind, QuestionLike, option_values

if TYPE_CHECKING:
    from surveys.kinds._estimates import ChoiceEstimate


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = "choice"
    stored_kind: ClassVar[str] = "choice"
    builder_title: ClassVar[str] = "Sensitive choice (randomized, k-RR)"
    randomized: ClassVar[bool] = True
    design_shape: ClassVar[str | None] = "options"
    release_selection: ClassVar[str] = "mode"

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    comparison: ClassVar[str | None] = "categorical"
    power_planning: ClassVar[bool] = True

    has_options: ClassVar[bool] = True
    may_be_ordered: ClassVar[bool] = True

    def default_design_spec(self) -> dict[str, Any] | None:
        # k-RR's own starting spec: ε = ln 3, the default coin design's, so every randomized
        # question of a default survey protects the respondent equally.
        return dict(KRR_ENTRY.starting)

    def design_k(self, options: Sequence[str]) -> int | None:
        return len(options)

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        return rr.design_from_spec(spec, k=k)

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_option(question, value)

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option's share debiased by k-RR; an ordered question adds its mean score."""
        from dpcore.local.ordinal import estimate_mean_score
        from surveys.kinds import _estimates as e

        design = counts.design
        values = [counts.cells[o] for o in question.options]
        est = rr.estimate_krr(design, counts=values, confidence=counts.confidence)
        options = tuple(
            e.OptionEstimate(
                option=option,
                reported=int(o.reported),
                reported_rate=float_or_none(o.reported_rate),
                **estimate_fields(o),
            )
            for option, o in zip(question.options, est.options, strict=True)
        )
        mean_score = None
        if question.ordered:
            score = estimate_mean_score(design, counts=values, confidence=counts.confidence)
            mean_score = e.MeanScore(**estimate_fields(score), min=1, max=len(values))
        return e.ChoiceEstimate(
            **counts.header, n=int(est.n), options=options, mean_score=mean_score
        )

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        return options_entry(question)

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        return {question.key: ColumnLabels(question.text, option_values(question))}

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        # The value sent is the stored option; the label is the respondent's language.
        choices = _fields.shown_options(question.options, labels)
        field = _fields.radios(choices, required=_fields.tick_message(), label=question.text)
        return {_fields.field_name(question): field}

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        design = _protocol.question_design_or_none(question)
        if design is None:
            return _protocol.needs_js_protocol()
        realisation = physical.physical_realisation(design)
        if realisation is None:
            reason = _(
                "It keeps your answer with probability %(p)s, which coins or dice cannot "
                "reproduce exactly, so this question needs JavaScript."
            ) % {"p": formats.number_format(design.keep_probability, 3)}
            return _protocol.PhysicalProtocol(False, reason=reason)
        steps = _protocol.device_steps(realisation)
        return _protocol.PhysicalProtocol(True, [*steps, self._other_option_step(design.k)])

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        design = designs.question_design(question)
        return {
            "randomizer": _deniability.randomizer(question.options, design),
            "reports": _deniability.krr_reports(design, list(question.options), labels),
        }

    @staticmethod
    def _other_option_step(k: int) -> str:
        """How a k-RR respondent picks "a random other option" with a die."""
        if k - 1 > 1:
            return _(
                "To pick a random other option: leave out your true answer, number the other "
                "%(n)s options 1 to %(n)s in the order shown, and roll a die until it shows a "
                "number from 1 to %(n)s. Tick that option."
            ) % {"n": k - 1}
        return _("The random other option is simply the option that is not your answer.")

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        return {"options": list(question.options)}

    def chart_rows(self, estimate: ChoiceEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        e = estimate
        rows = [_chart_rows.row(base, o.option, e.n, o, "reported_rate") for o in e.options]
        if e.mean_score is not None:  # ordered (Likert): the debiased mean of the scores 1..k
            label = f"mean score ({e.mean_score.min}–{e.mean_score.max})"
            rows.append(_chart_rows.row(base, label, e.n, e.mean_score, None, proportion=False))
        return rows

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """One histogram of its options (Δ = 1), an estimate per option."""
        return histogram_part(question, share=None)

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` with a design over k options (k-RR); ordered when named 1..k."""
        return row.type_word == "select_one" and row.design_serves("options")

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return {
            "kind": self.stored_kind,
            "options": list(row.options),
            "design": dict(row.design or {}),
            "ordered": row.ordered_names,
        }

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.option_list(
            "select_one", question.key, question.options, ordered=question.ordered
        )

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question."""
        return {
            "key": "vote",
            "text": "Whom did you vote for?",
            "kind": self.stored_kind,
            "options": ["Alpha", "Beta", "Gamma"],
            "design": k_rr(3, 1.2).to_spec(),
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return "Beta"
