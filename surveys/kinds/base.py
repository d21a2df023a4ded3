"""The base class of a question kind (one subclass per module of :mod:`surveys.kinds`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol


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

    # ── releases: contributions and entries (branch releases) ──

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
    """The name in the question's design spec, if any."""
    design = question.design
    if isinstance(design, Mapping):
        name = design.get("name")
        return name if isinstance(name, str) else None
    return None
