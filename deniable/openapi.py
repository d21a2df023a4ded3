"""OpenAPI post-processing: the error responses every operation can give, documented once.

Views document their own outcomes (200/201/400/404/409 …). Two kinds of error come from the
layers around them and apply to whole classes of operations, so they are added here:

* 401/403 on every operation that requires authentication (a missing, unknown, revoked or
  expired credential is a 401, since token authentication comes first — accounts/authentication.py;
  403 for a session request without its CSRF token);
* 413 on every operation with a request body (``deniable.middleware.RequestSizeLimitMiddleware``
  refuses bodies over ``DENIABLE_MAX_REQUEST_BYTES`` before any view runs).

Both bodies are ``{"error": code, "detail": text}`` (the ``Error`` component).
"""

from __future__ import annotations

from typing import Any

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "A machine-readable code."},
        "detail": {"type": "string"},
    },
    "required": ["error", "detail"],
}
COMMON: dict[str, str] = {
    "401": "Authentication credentials are missing, invalid, revoked or expired.",
    "403": "A session request without its CSRF token, or an action that is not allowed.",
    "413": "The request body is over the size cap.",
}
BODY_METHODS = {"post", "put", "patch"}


def _error_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}


def add_common_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]`` entry (after the enum hook)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", ERROR_SCHEMA)
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            codes: list[str] = []
            if operation.get("security"):
                codes += ["401", "403"]
            if method in BODY_METHODS:
                codes.append("413")
            for code in codes:
                responses.setdefault(code, _error_response(COMMON[code]))
    return result
