"""Question kinds as plug-ins: one module per kind, each registering one :class:`QuestionKind`.

A kind owns everything that differs between kinds: validating its definition, cleaning an answer,
its tally slots and report vector, its estimate, its release contributions and entry, its export
cells, its physical (no-JS) protocol, its words and the name of its JS module. Code elsewhere asks
the registry (:func:`kind_of`, :func:`kinds`) and never branches on a kind's name.

The registry imports every module of this package once (no module is named here), so adding a
kind is adding one module. See docs/architecture.md#how-to-add-a-question-kind.
"""

from __future__ import annotations

from surveys.kinds.registry import (
    column_types,
    kind_named,
    kind_of,
    kinds,
    stored_kind_choices,
)

__all__ = ["column_types", "kind_named", "kind_of", "kinds", "stored_kind_choices"]
