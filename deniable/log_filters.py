"""Logging filters: request lines are logged without their query strings (issue 11 §10).

runserver's ``django.server`` logger prints the full request line of every 4xx/5xx at WARNING —
``"GET /s/demo/?token=… HTTP/1.1" 404`` — and old invitation links carried the token in the
query string. Query strings are dropped from every string the record will format (the request
line, and the raw line quoted in a "Bad request" message), keeping the method, path and status
an operator needs. gunicorn's access log is configured without them separately
(gunicorn.conf.py).
"""

from __future__ import annotations

import logging
import re

# A "?" inside a request target, up to the next space or quote: the query string.
_QUERY = re.compile(r"\?[^\s\"']*")


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
