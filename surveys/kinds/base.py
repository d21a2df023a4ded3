"""The base class of a question kind (one subclass per module of :mod:`surveys.kinds`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from surveys.kinds._fields import YES_NO_VALUES as YES_NO_VALUES
from surveys.kinds._fields import ColumnLabels as ColumnLabels
from surveys.kinds._fields import PageQuestion, PhysicalProtocol, field_name
from surveys.kinds._question import QuestionLike as QuestionLike

if TYPE_CHECKING:
    from django import forms

    from surveys.definitions.specs import Answer
    from surveys.kinds._data import QuestionCounts, SlotOf
    from surveys.kinds._xlsform import XlsformCells, XlsformRow

from dpcore.central.release_parts import ReleasePart
from dpcore.central.sensitivity import Contribution


def option_values(question: QuestionLike) -> dict[int, str]:
    """An option cell's codes in a labelled export: 1..k in the question's order (so an
    ``ordered`` question's codes are its scores)."""
    return {i: option for i, option in enumerate(question.options or (), start=1)}


class QuestionKind:
    """One kind of question. Subclasses set the class attributes and override the hooks.

    ``name`` is the kind's own name (the registry key, the JS module's name); ``stored_kind`` is
    the value of ``Question.kind`` its rows carry (the API's ``kind``), which differs from
    ``name`` only for a kind selected by its design (cheating detection is stored as ``yes_no``
    with that design: rows and the API contract stay as they were).
    """

    name: ClassVar[str]
    stored_kind: ClassVar[str]
    randomized: ClassVar[bool]
    #: Checked before the plain kinds of the same ``stored_kind`` (a design-selected kind).
    priority: ClassVar[int] = 0
    #: A plain kind's entry in the builder's kind select (surveys.pages.researcher.builder_card).
    builder_title: ClassVar[str] = ""

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    #: Its definition lists options (choice, category, multi) / takes bounds (number).
    has_options: ClassVar[bool] = False
    has_bounds: ClassVar[bool] = False
    #: Its options may be ordered (scored 1..k) / its answers restricted to whole numbers.
    may_be_ordered: ClassVar[bool] = False
    may_be_integer: ClassVar[bool] = False
    #: Answered directly with one of its options: the tallies keep one slice per answer, so it
    #: may be a ``group_by`` and a ``show_if`` target (a randomized report never may).
    slices_tallies: ClassVar[bool] = False
    #: The tallies keep the moments of its answers (count, Σx, Σx²) instead of one slot per cell.
    tally_moments: ClassVar[bool] = False
    #: The type of its export column (``integer``, ``text``, ``number``).
    column_type: ClassVar[str] = "text"
    #: The design names it accepts (None: every design of its stored kind).
    design_names: ClassVar[tuple[str, ...] | None] = None
    #: The question shape its designs serve (``dpcore.local.designs.Serves``; None: no design).
    design_shape: ClassVar[str | None] = None
    #: One design shared by its options, each option its own report (ε summed over them).
    design_per_option: ClassVar[bool] = False

    #: Its reports follow one linear model P(report) = c·π + d (not cheating detection's two
    #: groups and cheater share): what regression and the group comparisons need.
    linear_model: ClassVar[bool] = True
    #: How its groups are compared (``surveys.analysis.regression``): "binary", "categorical",
    #: "per_option", or None (not compared).
    comparison: ClassVar[str | None] = None
    #: A regression predictor (answered directly): dummy-coded when it has options.
    predictor: ClassVar[bool] = False
    #: The outcome of a linear regression (``family=linear``: a number answered directly).
    linear_outcome: ClassVar[bool] = False
    #: The power calculator plans it (one parameter; a multi question's options are yes/no).
    power_planning: ClassVar[bool] = False

    def outcome_error(self, key: str) -> str | None:
        """Why it cannot be a regression outcome (None: it can)."""
        return "Must be a yes_no (binary randomized) question."

    def design_notes(self) -> dict[str, Any]:
        """What the design preview adds for this kind (e.g. an assumption ε rests on)."""
        return {}

    def design_preview(
        self,
        design: Any,
        *,
        planned_n: int,
        prior: float | None,
        confidence: float,
        half_width: float,
    ) -> dict[str, Any] | None:
        """The builder's preview of a design this kind states itself (a grouped design: its
        group ε and per-group planning); None: the one-report preview
        (``surveys.definitions.question_designs.design_preview``)."""
        return None

    def default_design_spec(self) -> dict[str, Any] | None:
        """The design spec a question of this kind gets when it gives none (None: direct)."""
        return None

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        """Its ``dpcore.local`` design from a spec (randomized kinds); raises ``DesignError``."""
        from dpcore import local as rr

        return rr.design_from_spec(spec)

    def design_k(self, options: Sequence[str]) -> int | None:
        """The number of categories its design randomizes over (None: a binary design)."""
        return None

    def clean_answer(self, question: Any, value: object) -> Answer:
        """The reported answer as stored; raises DRF's ``ValidationError`` (the message names
        what is wrong; the caller names the field ``answers.<key>``)."""
        raise NotImplementedError

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        """The cell values of its tally slots, in slot order (its options by default)."""
        return tuple(question.options or ())

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        """Add one reported answer to a submission's vector (``slot(key, cell)``: the slot)."""
        vector[slot(key, value)] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Its typed estimate (a ``surveys.selectors.estimates`` entry) from its counts."""
        raise NotImplementedError

    def fit(self, question: Any, counts: QuestionCounts) -> dict[str, Any] | None:
        """Its design's goodness of fit (docs/analysis.md#goodness-of-fit): the API's ``fit``
        object ``{"statistic", "value", "df", "p_value", "note"}``, or None where the design
        has no test (the default)."""
        return None

    def compare_groups(
        self, question: Any, entries: Sequence[tuple[str, Mapping[str, Any]]], confidence: float
    ) -> dict[str, Any] | None:
        """Its own group comparison (``surveys.analysis.regression.add_comparisons``) from each
        shown group's estimate entry (the API's JSON), or None: compared by :attr:`comparison`
        (the default)."""
        return None

    def fit_reason(self) -> str:
        """What a rejected fit means for its design, in words (translated; the dashboard)."""
        return ""

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        """(column, column type) of its export columns (its key by default)."""
        return [(question.key, self.column_type)]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        """The export cells (column → raw value) of one stored answer."""
        return {key: value}

    def labelled_columns(self, question: Any) -> dict[str, ColumnLabels]:
        """Per export column (as :meth:`export_columns` names it): its variable label and value
        labels in the Stata/SPSS export (the question's text, no value labels by default)."""
        return {
            column: ColumnLabels(question.text, {}) for column, _ in self.export_columns(question)
        }

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        """What the export metadata says of the definition beyond kind and text."""
        return {}

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The export metadata's columns for it (``entry``: its ``export_designs`` entry)."""
        from surveys.kinds._data import metadata_column

        return [metadata_column(key, self.column_type, entry)]

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    #: Neither randomized on the page nor sent as entered (crosswise: a second statement
    #: protects it): the survey's words count and list it apart.
    paired: ClassVar[bool] = False

    @property
    def template_name(self) -> str:
        """The respondent page's partial for the answer (``templates/respond/kinds/``)."""
        return f"respond/kinds/{self.name}.html"

    def form_fields(
        self, question: PageQuestion, labels: Mapping[str, str]
    ) -> dict[str, forms.Field]:
        """The no-JS form's fields of the question by name, required (the form makes an
        optional question's fields optional); ``labels``: the options' words on the page."""
        raise NotImplementedError(self.name)

    def option_fields(self, question: PageQuestion) -> list[tuple[str, str]]:
        """(option, its form field) for a kind with a radio group per option; else empty."""
        return []

    def error_field_names(self, question: PageQuestion) -> list[str]:
        """The form fields whose refusals are the question's; its errors attach to the first."""
        return [name for _, name in self.option_fields(question)] or [field_name(question)]

    def error_anchor(self, question: PageQuestion) -> str:
        """The id the error summary links to: the first radio of the question's group."""
        return f"id_{self.error_field_names(question)[0]}_0"

    def form_answer(self, question: PageQuestion, data: Mapping[str, Any]) -> Any:
        """The answer in the form's cleaned data, or None when none was given."""
        value = data.get(field_name(question))
        return None if value == "" else value

    def physical_protocol(self, question: PageQuestion) -> PhysicalProtocol:
        """The no-JS page's steps (nothing to draw: the answer is sent as entered)."""
        return PhysicalProtocol(True)

    def page_data(self, question: PageQuestion) -> dict[str, Any]:
        """Keys of the page's data island (``survey-data``) that only this kind's JS reads."""
        return {}

    def protection(self, question: PageQuestion, labels: Mapping[str, str]) -> dict[str, Any]:
        """A randomized question's ``randomizer`` and per-report ``reports`` (and, when the
        kind's differ, its ``handling_text``), in the active language; see
        :func:`surveys.pages.protection.question_protection`."""
        return {}

    #: The results may be grouped by its answers (a direct question with options).
    groups_results: ClassVar[bool] = False
    #: A regression may take it as its outcome (when its design is linear) or as a predictor.
    regression_outcome: ClassVar[bool] = False
    regression_predictor: ClassVar[bool] = False
    #: Keys of its design spec that are words, translated with the survey (docs/translations.md).
    translated_design_fields: ClassVar[tuple[str, ...]] = ()

    def builder_fields(self, question: PageQuestion) -> dict[str, Any]:
        """What the builder's data island holds of the question besides its key, text, kind,
        design and skip logic (options, bounds)."""
        return {}

    def chart_rows(self, estimate: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
        """The researcher's table and chart rows of the question's estimate
        (``surveys.pages.charts``);
        ``base``: the question's own columns, in every row."""
        raise NotImplementedError(self.name)

    def researcher_note(self, survey: Any, question: PageQuestion) -> dict[str, Any] | None:
        """A note the dashboard shows about the question (None: nothing to say)."""
        return None

    # ── releases: contributions and entries (branch releases) ──

    #: True when a release may be grouped by this kind's answer: each respondent then sits in
    #: exactly one group (one option of a single-answer question).
    release_groups: ClassVar[bool] = False
    #: What a selection release (issue 30, the exponential mechanism) takes of this kind:
    #: "quantile" (a bounded number: median, quantiles), "mode" (the most common option of a
    #: single-answer question), "" (nothing).
    release_selection: ClassVar[str] = ""

    def releasable(self, question: QuestionLike) -> bool:
        """True when a central-DP release can include the question."""
        return True

    def release_part(self, question: QuestionLike) -> ReleasePart:
        """What a release does with the question (a :mod:`dpcore.central.release_parts` part):
        for most kinds one histogram of its cells (``surveys.kinds._release.histogram_part``;
        not called from here: base imports no helper that reads a question's design)."""
        raise NotImplementedError(f"{self.name}: no release part")

    def release_contributions(self, question: QuestionLike) -> tuple[Contribution, ...]:
        """The independently noised pieces the question adds to a release (m counts them)."""
        return self.release_part(question).contributions

    def release_note(self, question: QuestionLike) -> str:
        """Said beside the question in the releases panel, after its kind's label (what it
        releases when more than one histogram, and what that costs)."""
        return ""

    # ── XLSForm (surveys.xlsform, docs/xlsform.md; helpers in surveys.kinds._xlsform) ──

    def xlsform_claims(self, row: XlsformRow) -> bool:
        """True when a ``survey`` row is a question of this kind (asked in registry order)."""
        return False

    def from_xlsform(self, row: XlsformRow) -> dict[str, Any]:
        """The API's JSON of the row's question beyond its key, text, required and show_if
        (``kind`` and what the kind takes: options, design, bounds…), for the survey validator."""
        raise NotImplementedError(f"{self.name}: no XLSForm reading")

    def xlsform_cells(self, question: Any) -> XlsformCells:
        """The type cell, choice list and other cells (``constraint``) of a question row; the
        design, words, ``required`` and ``relevant`` are written alike for every kind."""
        raise NotImplementedError(f"{self.name}: no XLSForm writing")

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

    def example_question(self, design: Mapping[str, object] | None = None) -> dict[str, object]:
        """The API's JSON of an example question of this kind (the kind × surface matrix test and
        the demo use it; a kind accepting several designs takes a design spec)."""
        raise NotImplementedError(f"{type(self).__name__} has no example question")

    def example_answer(self) -> object:
        """A reported answer to :meth:`example_question` (the API's JSON)."""
        raise NotImplementedError(f"{type(self).__name__} has no example answer")

    @classmethod
    def matches(cls, question: QuestionLike) -> bool:
        """True when ``question`` is of this kind (the stored kind, and for a design-selected
        kind its design)."""
        return question.kind == cls.stored_kind

    @property
    def js_module(self) -> str:
        """The respondent page's ES module for this kind (``static/js/respond/kinds/``)."""
        return f"respond/kinds/{self.name}.js"


def design_name(question: QuestionLike) -> str | None:
    """The name in the question's design spec, if any (an object without a design, as the
    tally layout's callers may pass, has none)."""
    design = getattr(question, "design", None)
    if isinstance(design, Mapping):
        name = design.get("name")
        return name if isinstance(name, str) else None
    return None
