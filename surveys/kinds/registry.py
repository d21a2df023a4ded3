"""The registry of question kinds: every module of :mod:`surveys.kinds` is imported once and its
:class:`~surveys.kinds.base.QuestionKind` subclasses registered, so no module is named here."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from surveys.kinds.base import QuestionKind, QuestionLike

_INFRASTRUCTURE = frozenset({"base", "registry"})


@cache
def kinds() -> tuple[QuestionKind, ...]:
    """Every registered kind, design-selected kinds first (so :func:`kind_of` tries them first)."""
    package = importlib.import_module("surveys.kinds")
    for module in pkgutil.iter_modules(package.__path__):
        # Helpers start with "_" and define no kind (the JS registry test lists kinds the same way).
        if module.name not in _INFRASTRUCTURE and not module.name.startswith("_"):
            importlib.import_module(f"surveys.kinds.{module.name}")
    found = [cls() for cls in _concrete_subclasses(QuestionKind)]
    names = [kind.name for kind in found]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise RuntimeError(f"question kinds registered twice: {', '.join(duplicates)}")
    return tuple(sorted(found, key=lambda kind: (-kind.priority, kind.name)))


def _concrete_subclasses(cls: type[QuestionKind]) -> list[type[QuestionKind]]:
    out: list[type[QuestionKind]] = []
    for sub in cls.__subclasses__():
        if "name" in vars(sub):
            out.append(sub)
        out.extend(_concrete_subclasses(sub))
    return out


def kind_of(question: QuestionLike) -> QuestionKind:
    """The kind of a question (a row, a historical row or a validated input)."""
    for kind in kinds():
        if kind.matches(question):
            return kind
    raise LookupError(f"no question kind for {question.kind!r}")


def kind_named(name: str) -> QuestionKind:
    """The kind registered under ``name`` (a KeyError names it when unknown)."""
    for kind in kinds():
        if kind.name == name:
            return kind
    raise KeyError(name)


def stored_kind_choices() -> tuple[str, ...]:
    """The values ``Question.kind`` may hold (the API's ``kind`` enum), in registry order."""
    return tuple(dict.fromkeys(kind.stored_kind for kind in kinds()))


def column_types() -> tuple[str, ...]:
    """The types of the export's columns (the API's column ``type`` enum): each kind's
    ``column_type``, sorted."""
    return tuple(sorted({kind.column_type for kind in kinds()}))
