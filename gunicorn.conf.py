"""gunicorn settings for the production shape (docker-compose ``web``).

The access log format leaves out ``%(h)s`` (client address) and ``%(a)s`` (user agent): Deniable
never records who sent a response (docs/privacy-model.md#unlinkability). Query strings are left out
too (``%(U)s`` is the path only), so a token mistakenly put in a URL is not logged either.
Respondent routes (``/s/…``, the responses API, the invitation check) are not logged at all
(``logger_class``, deniable/gunicorn_logging.py): their lines would time each respondent.
"""

from __future__ import annotations

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
# Connections one worker holds at most (gunicorn's default, 1000). The submission bench sets
# it to its connections ÷ workers: a worker at the cap stops accepting, so wrk's keep-alive
# connections are split evenly instead of by which worker woke first (bench/RESULTS.md §10).
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
timeout = 30
graceful_timeout = 20
accesslog = "-"
errorlog = "-"
access_log_format = '"%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
logger_class = "deniable.gunicorn_logging.RespondentQuietLogger"
