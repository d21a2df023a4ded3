"""gunicorn's access logger without respondent routes (issue 21, item 16; gunicorn.conf.py).

One access line per submission would carry its arrival time and duration (and the log driver's
timestamp): it would order and time the respondents, which the stored data never does. The routes
are :func:`deniable.log_filters.is_respondent_path`'s; ``DENIABLE_LOG_RESPONDENT_REQUESTS=true``
logs them anyway (debugging only).
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]  # no stubs

from deniable.log_filters import is_respondent_path, respondent_logging_enabled


class RespondentQuietLogger(Logger):
    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        path = str(environ.get("PATH_INFO", ""))
        if is_respondent_path(path) and not respondent_logging_enabled():
            return
        super().access(resp, req, environ, request_time)
