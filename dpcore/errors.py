"""The one exception family of the pure core (no Django).

Every invalid argument to a :mod:`dpcore` function raises a :class:`ParameterError` — a
``ValueError`` whose ``field`` names the offending parameter, so an API layer maps it to a
field-level 400 without parsing the message. The subclasses keep the names callers already catch:

* :class:`DesignError` — an invalid randomization design (``surveys`` turns it into a 400 on the
  design's field);
* :class:`PrivacyParameterError` — an invalid privacy parameter (ε, δ, ρ, σ, a scale, …);
* :class:`ArgumentError` — any other bad argument to the statistics (counts, priors, confidence,
  rates). Its ``str()`` is the message alone, which already names the field (``"n must be at
  least 1 (got 0)"``), exactly as the plain ``ValueError`` these used to be.

``DesignError`` and ``PrivacyParameterError`` read ``"<field>: <message>"``.
"""

from __future__ import annotations

__all__ = ["ArgumentError", "DesignError", "ParameterError", "PrivacyParameterError"]


class ParameterError(ValueError):
    """An invalid parameter; ``field`` names it, ``message`` says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(self._text(field, message))
        self.field = field
        self.message = message

    @staticmethod
    def _text(field: str, message: str) -> str:
        return f"{field}: {message}"

    def __reduce__(self) -> tuple[type[ParameterError], tuple[str, str]]:  # picklable (Celery)
        return (type(self), (self.field, self.message))


class DesignError(ParameterError):
    """An invalid randomization design. ``field`` names the offending parameter."""


class PrivacyParameterError(ParameterError):
    """A privacy parameter (ε, δ, ρ, σ, a scale, ...) is invalid.

    ``field`` names the offending parameter so the API layer can map it to a field-level 400
    without parsing the message.
    """


class ArgumentError(ParameterError):
    """A bad argument to the statistics; ``str()`` is the message alone (it names the field)."""

    @staticmethod
    def _text(field: str, message: str) -> str:
        return message
