"""The base class of a question kind (one subclass per module of :mod:`surveys.kinds`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from surveys.kinds._fields import PageQuestion, field_name
from surveys.kinds._protocol import PhysicalProtocol

if TYPE_CHECKING:
    from django import forms


class QuestionLike(Protocol):
    """What a kind reads of a question: a model row, a historical model in a migration, or a
    validated input (the kind modules never need Django's model class)."""

    key: str
    kind: str
    options: Any
    design: Any


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

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──

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
        :func:`surveys.protection.question_protection`."""
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
        """The researcher's table and chart rows of the question's estimate (``surveys.charts``);
        ``base``: the question's own columns, in every row."""
        raise NotImplementedError(self.name)

    def researcher_note(self, survey: Any, question: PageQuestion) -> dict[str, Any] | None:
        """A note the dashboard shows about the question (None: nothing to say)."""
        return None

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──

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
    """The name in the question's design spec, if any."""
    design = question.design
    if isinstance(design, Mapping):
        name = design.get("name")
        return name if isinstance(name, str) else None
    return None
