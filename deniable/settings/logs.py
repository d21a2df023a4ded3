"""The logging settings (base.py): never answers, tokens, IPs or user agents.

runserver's and Django's request loggers go through filters that drop query strings and every
respondent route (deniable/log_filters.py), so a log line never times or places a respondent.
"""

from __future__ import annotations

from typing import Any


def logging_settings(*, level: str) -> dict[str, Any]:
    """Django's ``LOGGING``: one console handler at ``level``, the request loggers filtered."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
        "filters": {
            "drop_query_strings": {"()": "deniable.log_filters.DropQueryStrings"},
            "drop_respondent_requests": {"()": "deniable.log_filters.DropRespondentRequests"},
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # runserver's request log prints the client address; keep it quiet. Its 4xx/5xx lines
            # (what `make run` prints) keep method, path and status, never the query string: a
            # logger-level filter, so every handler sees the redacted record.
            "django.server": {
                "handlers": ["console"],
                "level": "WARNING",
                "propagate": False,
                "filters": ["drop_query_strings", "drop_respondent_requests"],
            },
            # Its 4xx/5xx lines ("Not Found: /s/…") on respondent routes would time each respondent.
            "django.request": {"filters": ["drop_respondent_requests"]},
        },
    }
