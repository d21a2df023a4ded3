"""A WSGI app answering 404 to every path: what gunicorn's access log sees, without Django
(tests/security/test_respondent_request_logs.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("404 Not Found", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"no"]
