"""drf-spectacular: the OpenAPI security scheme of :class:`ApiTokenAuthentication`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                "`Token <key>`: a key from the token endpoint (auth/token/) or the API tokens "
                "page. "
                "Keys expire (90 days by default) and can be revoked; an expired, revoked or "
                "unknown key is a 401."
            ),
        }
