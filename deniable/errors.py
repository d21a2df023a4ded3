"""Domain errors raised by services and mapped to HTTP by the API error handler.

Services never import DRF; views never build error bodies by hand. Shapes (docs/api.md#errors):
``{"errors": {field: [messages]}}`` for :class:`InvalidInput`, else
``{"error": code, "detail": text, **extra}``.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    status_code = 400
    code = "invalid"

    def __init__(self, detail: str = "", *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.extra = extra

    def as_body(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


class InvalidInput(DomainError):
    """Bad input, with the offending fields: ``InvalidInput({"answers.q1": ["..."]})``."""

    status_code = 400
    code = "invalid"

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors

    def as_body(self) -> dict[str, Any]:
        return {"errors": self.errors}

    @classmethod
    def single(cls, field: str, message: str) -> InvalidInput:
        return cls({field: [message]})


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Forbidden(DomainError):
    """403: a member of the survey's team whose role does not allow this (docs/teams.md).
    Anyone outside the team gets :class:`NotFound` instead, so existence is not leaked."""

    status_code = 403
    code = "forbidden"


class Conflict(DomainError):
    """409: the request is well formed but the state forbids it (closed, used, over budget)."""

    status_code = 409
    code = "conflict"
