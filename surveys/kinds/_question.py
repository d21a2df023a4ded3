"""What a kind reads of a question (its own module: the helpers and base both import it)."""

from __future__ import annotations

from typing import Any, Protocol


class QuestionLike(Protocol):
    """What a kind reads of a question: a model row, a historical model in a migration, or a
    validated input (the kind modules never need Django's model class)."""

    key: str
    kind: str
    options: Any
    design: Any
