"""What a parse of an XLSForm gives: the survey body, where each API path came from, and the
problems found, by cell (its own module: the settings and the survey sheets both write to it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Parsed:
    """The survey body, ``where`` (API path → cell) and the problems found by cell."""

    body: dict[str, Any] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)

    def problem(self, ref: str, message: str) -> None:
        self.errors.setdefault(ref, []).append(message)
