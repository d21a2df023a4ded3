"""The crosswise model (Yu, Tian & Tang 2008): a yes/no question with no randomizer on the page;
the respondent reports whether their answer and an innocuous statement's are the SAME or
DIFFERENT. Its form, words, no-JS page and chart row differ from a randomized yes/no question's,
so it is a kind of its own, selected by its design; its rows are stored as ``yes_no`` with that
design (stored data and the API contract unchanged)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dpcore import local as rr
from dpcore.central.release_parts import ReleasePart
from dpcore.local import fit as rr_fit
from surveys.definitions.crosswise_statements import (
    RESPONDENTS_BY_LANGUAGE_NOTE,
    crosswise_statements,
)
from surveys.definitions.innocuous import CROSSWISE_ASSUMPTION, CROSSWISE_RESEARCHER_ASSUMPTION
from surveys.definitions.specs import Answer
from surveys.kinds import _chart_rows, _deniability, _fields, _fit, _protocol
from surveys.kinds import _design as designs
from surveys.kinds import _xlsform as xls
from surveys.kinds._data import (
    YES_NO_CELLS,
    QuestionCounts,
    SlotOf,
    binary_estimate,
    clean_report,
    metadata_column,
    r_name,
    report_cell,
)
from surveys.kinds._fields import FormFields, PageQuestion
from surveys.kinds._release import histogram_part
from surveys.kinds.base import ColumnLabels, QuestionKind, QuestionLike, design_name
from surveys.kinds.yes_no import YesNoKind


def rr_hint(key: str, design: Mapping[str, Any]) -> str:
    """RRreg's call for the column: it holds "same" as 1, as RRreg's Crosswise model codes it.
    ``response`` is the bare column name: RRuni evaluates it inside ``data`` (a quoted name
    would be taken as the response itself and fail)."""
    return (
        f'RRreg::RRuni(response = {r_name(key)}, data = reports, model = "Crosswise", '
        f"p = {design['innocuous_prevalence']!r})"
    )


if TYPE_CHECKING:
    from surveys.kinds._estimates import BinaryEstimate

#: A crosswise question's one row: what its estimate is (its reports are SAME/DIFFERENT).
CROSSWISE_LABEL = "has the trait (estimated prevalence)"


class CrosswiseKind(QuestionKind):
    name: ClassVar[str] = "crosswise"
    # Stored as a yes/no question with its design (rows and the API contract as they were).
    stored_kind: ClassVar[str] = YesNoKind.stored_kind
    randomized: ClassVar[bool] = True
    priority: ClassVar[int] = 1

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        return question.kind == cls.stored_kind and design_name(question) == cls.name

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    @staticmethod
    def simulated_report(spec: Mapping[str, Any], truth: bool, u: float) -> bool:
        """A simulated report (``surveys.collection.simulation``): no randomizer, the respondent's
        innocuous fact (true when ``u`` < p) is the randomness; SAME (True) when both agree."""
        return bool((u < spec["innocuous_prevalence"]) == truth)

    comparison: ClassVar[str | None] = "binary"
    power_planning: ClassVar[bool] = True

    def outcome_error(self, key: str) -> str | None:
        return None

    column_type: ClassVar[str] = "integer"

    def design_notes(self) -> dict[str, Any]:
        """The crosswise ε is valid only under this assumption: said wherever ε is shown."""
        from surveys.definitions.innocuous import CROSSWISE_ASSUMPTION

        return {"assumption": CROSSWISE_ASSUMPTION}

    def clean_answer(self, question: Any, value: object) -> Answer:
        return clean_report(value)  # True: SAME

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return YES_NO_CELLS

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        vector[slot(key, report_cell(value))] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        return binary_estimate(question, counts)

    def fit(self, question: Any, counts: QuestionCounts) -> dict[str, Any] | None:
        """G² of 0 ≤ π ≤ 1 against the unconstrained fit (one group, one parameter: only the
        range of P(SAME) can be contradicted; ``dpcore.local.fit.binary_fit``)."""
        yes, no = counts.cells["yes"], counts.cells["no"]
        design = counts.design
        result = rr_fit.binary_fit(yes=yes, n=yes + no, c=design.c, d=design.d)
        return _fit.fit_body(result, "0 ≤ π ≤ 1 (P(SAME) between p and 1 − p)")

    def fit_reason(self) -> str:
        return _(
            "the share answering SAME is outside what any prevalence can give with the "
            "innocuous statement's prevalence. Perhaps that prevalence is wrong for these "
            "respondents, or some answered without following the instructions."
        )

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {key: int(value)}

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        # The reported boolean is SAME (docs/formulas.md#crosswise), as RRreg codes it.
        return {question.key: ColumnLabels(question.text, {1: "Same", 0: "Different"})}

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        """Issue 21.9: every language's innocuous statement, each checked against the library."""
        from surveys.definitions.crosswise_statements import crosswise_statements

        statements = crosswise_statements(survey, question)
        return {
            "innocuous_statements": statements,
            "innocuous_verified": all(s["verified"] for s in statements),
        }

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [metadata_column(key, self.column_type, entry, hint=rr_hint)]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    #: No chance is drawn: a second statement protects the answer (counted apart in the words).
    paired: ClassVar[bool] = True

    def form_fields(self, question: PageQuestion, labels: Mapping[str, str]) -> FormFields:
        """The radios: the reported boolean is ``same`` (docs/formulas.md#crosswise)."""
        field = _fields.radios(
            [("same", _("Same")), ("different", _("Different"))],
            required=_("Tick SAME or DIFFERENT."),
            coerce=lambda v: v == "same",
            label=question.text,
        )
        return {_fields.field_name(question): field}

    def physical_protocol(self, question: PageQuestion) -> _protocol.PhysicalProtocol:
        # No randomizer: the page asks SAME/DIFFERENT identically with and without JavaScript.
        return _protocol.PhysicalProtocol(True, [str(step) for step in CROSSWISE_STEPS])

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        design = designs.question_design(question)
        return {
            "randomizer": crosswise_randomizer(design.to_spec()),
            "handling_text": _(
                "Crosswise: only SAME or DIFFERENT is sent, never your answer to either "
                "statement. %(assumption)s"
            )
            % {"assumption": assumption()},
            "reports": _crosswise_reports(design),
        }

    regression_outcome: ClassVar[bool] = True
    #: The innocuous statement is written in each of the survey's languages.
    translated_design_fields: ClassVar[tuple[str, ...]] = ("innocuous_text",)

    def chart_rows(self, estimate: BinaryEstimate, base: dict[str, Any]) -> list[dict[str, Any]]:
        # Issue 22.9: a crosswise report is SAME/DIFFERENT, not yes/no: the reported rate is the
        # share answering SAME and the estimate is the prevalence of the sensitive trait.
        row = _chart_rows.row(base, CROSSWISE_LABEL, estimate.n, estimate, "reported_yes_rate")
        row["reported_label"] = "SAME"
        return [row]

    def researcher_note(self, survey: Any, question: PageQuestion) -> dict[str, Any] | None:
        """Every language's innocuous statement, each checked against the library (issue
        21.9), and the assumption the ε rests on (``surveys/_crosswise_notes.html``)."""
        statements = crosswise_statements(survey, question)
        several = len(statements) > 1
        return {
            "key": question.key,
            "text": question.text,
            "statements": statements,
            "verified": all(s["verified"] for s in statements),
            "prevalence": (question.design or {}).get("innocuous_prevalence"),
            "assumption": CROSSWISE_RESEARCHER_ASSUMPTION,
            "respondents_note": RESPONDENTS_BY_LANGUAGE_NOTE if several else "",
        }

    # ── releases: contributions and entries (branch releases) ──

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """One histogram (yes, no) of the reports as tallied: Δ = 1, and the share of "yes" is
        the estimate (the design's (c, d) debias the SAME/DIFFERENT reports)."""
        return histogram_part(question, share="yes")

    # ── XLSForm (docs/xlsform.md) ──

    def xlsform_claims(self, row: xls.XlsformRow) -> bool:
        """``select_one`` over a yes/no list with ``crosswise …``; the statement is in
        ``deniable::innocuous`` (and its translations)."""
        named = (row.design or {}).get("name") == self.name
        return row.type_word == "select_one" and row.yes_no_list and named

    def from_xlsform(self, row: xls.XlsformRow) -> dict[str, Any]:
        return {"kind": self.stored_kind, "design": dict(row.design or {})}

    def xlsform_cells(self, question: Any) -> xls.XlsformCells:
        return xls.yes_no_cells(YesNoKind.stored_kind)

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question (the yes/no kind under this design)."""
        innocuous = "My mother was born in January, February or March."
        return {
            "key": "cross",
            "text": "I have used a fake receipt.",
            "kind": self.stored_kind,
            "design": {
                "name": self.name,
                "innocuous_prevalence": 0.25,
                "innocuous_text": innocuous,
            },
        }

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        return True


CROSSWISE_STEPS = [
    gettext_lazy("Think of your true answer to each of the two statements. Nobody needs a coin."),
    gettext_lazy(
        "Both true, or both false: tick SAME. One true and the other false: tick DIFFERENT."
    ),
]


def assumption() -> str:
    """The crosswise model's assumption (``surveys.definitions.innocuous``) in the active
    language."""
    return _(CROSSWISE_ASSUMPTION)


def crosswise_randomizer(spec: dict[str, Any]) -> dict[str, Any]:
    """The crosswise page has no coins and no spinner: the respondent's own answer to the second
    (innocuous) statement, true for about ``p`` of people, is the chance."""
    p = float(spec["innocuous_prevalence"])
    text = spec.get("innocuous_text") or _("the second statement")
    return {
        "kind": "none",
        "button": "",
        "how": _(
            "No coin is needed. Say only whether your answers to the two statements are the "
            "same (both true or both false) or different. “%(statement)s” is true for about "
            "%(percent)s of people, so nobody can be sure from SAME or DIFFERENT what your "
            "answer to the first statement is. %(assumption)s"
        )
        % {"statement": text, "percent": _deniability.percent(p), "assumption": assumption()},
        "assumption": assumption(),
        "innocuous_text": text,
        "innocuous_prevalence": p,
        "sectors": [],
    }


def _crosswise_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """Keys ``yes`` (= SAME) and ``no`` (= DIFFERENT), like every yes/no design's reports:
    ``LR(same) = p/(1 − p)``, ``LR(different) = (1 − p)/p`` (true answer yes vs no)."""
    p = float(design.params["innocuous_prevalence"])
    out = {}
    pairs = (("yes", _("SAME"), p / (1 - p)), ("no", _("DIFFERENT"), (1 - p) / p))
    for report, word, ratio in pairs:
        # Words for the answer the report favours, so the ratio read out is ≥ 1.
        likely, other = ("yes", "no") if ratio >= 1 else ("no", "yes")
        shown = max(ratio, 1 / ratio)
        post = _deniability.posterior(shown, 0.5)
        out[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": _deniability.posterior(ratio, 0.5),
            "text": _(
                "A %(word)s answer is %(times)s as likely from someone whose true answer to the "
                "first statement is %(likely)s as from someone whose answer is %(other)s. "
                "Someone who thought it 50–50 beforehand would now think it is %(percent)s "
                "likely that your answer is %(likely)s. %(assumption)s"
            )
            % {
                "word": word,
                "times": _deniability.times(shown),
                "likely": _deniability.answer_word(likely),
                "other": _deniability.answer_word(other),
                "percent": _deniability.percent(post),
                "assumption": assumption(),
            },
        }
    return out
