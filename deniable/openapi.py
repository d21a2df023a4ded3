"""OpenAPI post-processing: the error responses every operation can give, documented once.

Views document their own outcomes (200/201/400/404/409 …). Two kinds of error come from the
layers around them and apply to whole classes of operations, so they are added here:

* 401/403 on every operation that requires authentication (DRF answers a missing or bad
  credential with 403 here, since session authentication comes first; 401 if a token-only
  client is ever configured);
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
    "401": "Authentication credentials are missing or invalid.",
    "403": "Authentication credentials are missing or invalid, or the action is not allowed.",
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
