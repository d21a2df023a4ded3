"""What a question's stored kind and design say before the question is validated or saved: its
kind (definition rules, default design), the stored kinds that carry a design, and the kind the
design preview checks (branch kinds-data). Apart from :mod:`surveys.kinds._data` so the data
helpers never import the registry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from surveys.kinds.base import QuestionKind
from surveys.kinds.registry import kind_of, stored_kind_choices


@dataclass
class Definition:
    """A question's definition as far as the registry reads it (before it is validated)."""

    kind: str
    design: object = None
    key: str = ""
    options: Any = ()


def definition_kind(kind: str, design: object = None) -> QuestionKind:
    """The kind of a question stored as ``kind`` with ``design`` (a plain kind without one);
    raises ``LookupError`` for an unknown stored kind."""

    return kind_of(Definition(kind=kind, design=design))


def randomized_stored_kinds() -> tuple[str, ...]:
    """The stored kinds whose questions carry a design, in registry order."""

    return tuple(kind for kind in stored_kind_choices() if definition_kind(kind).randomized)


def preview_kind(kind: str, spec: Mapping[str, Any] | None) -> QuestionKind:
    """The stored kind's plain kind for the design preview; a design it does not accept, or an
    unknown kind, raises ``DesignError`` naming ``name`` or ``kind``."""
    from dpcore.local import DesignError

    try:
        plain = definition_kind(kind)
    except LookupError:
        kinds = ", ".join(randomized_stored_kinds())  # as for a direct kind's (no design)
        raise DesignError("kind", f"only randomized kinds ({kinds}) have a design") from None
    names = plain.design_names
    if names is not None and spec is not None and spec.get("name") not in names:
        raise DesignError("name", f"for a {kind} question use one of: {', '.join(names)}")
    return plain
