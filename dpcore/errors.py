"""Errors raised by the pure privacy engine (no Django)."""

from __future__ import annotations


class PrivacyParameterError(ValueError):
    """A privacy parameter (ε, δ, ρ, σ, a scale, ...) is invalid.

    ``field`` names the offending parameter so the API layer can map it to a field-level 400
    without parsing the message.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
