"""Logging filters: request lines are logged without their query strings (issue 11 §10).

runserver's ``django.server`` logger prints the full request line of every 4xx/5xx at WARNING —
``"GET /s/demo/?token=… HTTP/1.1" 404`` — and old invitation links carried the token in the
query string. Query strings are dropped from every string the record will format (the request
line, and the raw line quoted in a "Bad request" message), keeping the method, path and status
an operator needs. gunicorn's access log is configured without them separately
(gunicorn.conf.py).

Respondent routes are not logged at all by default (issue 21, item 16): a line per submission
carries its arrival time, which orders and times the respondents — exactly what the stored data
avoids. :func:`is_respondent_path` is the one definition, used here (``django.request``,
``django.server``) and by gunicorn's access logger (:mod:`deniable.gunicorn_logging`);
``DENIABLE_LOG_RESPONDENT_REQUESTS=true`` turns the lines back on for debugging.
"""

from __future__ import annotations

import logging
import os
import re

# A "?" inside a request target, up to the next space or quote: the query string.
_QUERY = re.compile(r"\?[^\s\"']*")


# The respondent's page and its form post (/s/<slug>/…), the responses API (not its export) and
# the invitation check the respondent page calls.
_RESPONDENT = re.compile(
    r"^/(?:s/|api/v1/surveys/[^/?\s]+/(?:responses|invitations/check)/?(?:[?\s]|$))"
)
# The path in a request line or a "Not Found: /path" message.
_PATHS = re.compile(r"(?<![^\s\"':])/[^\s\"']*")
ENV_FLAG = "DENIABLE_LOG_RESPONDENT_REQUESTS"


def is_respondent_path(path: str) -> bool:
    return bool(_RESPONDENT.match(path))


def respondent_logging_enabled() -> bool:
    """The opt-in (setting, else the environment: gunicorn's logger may run without Django)."""
    try:
        from django.conf import settings

        return bool(settings.DENIABLE_LOG_RESPONDENT_REQUESTS)
    except Exception:  # noqa: BLE001 — settings not configured (gunicorn's master)
        return os.environ.get(ENV_FLAG, "").lower() in ("1", "true", "yes", "on")


class DropRespondentRequests(logging.Filter):
    """Drop ``django.request`` / ``django.server`` records about a respondent route."""

    def filter(self, record: logging.LogRecord) -> bool:
        if respondent_logging_enabled():
            return True
        request = getattr(record, "request", None)
        path = getattr(request, "path", None)
        if isinstance(path, str):
            return not is_respondent_path(path)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 — a malformed record is not ours to judge
            return True
        return not any(is_respondent_path(p) for p in _PATHS.findall(message))


def _strip(value: object) -> object:
    return _QUERY.sub("", value) if isinstance(value, str) else value


class DropQueryStrings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = _strip(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_strip(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _strip(value) for key, value in record.args.items()}
        return True
