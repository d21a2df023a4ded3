"""Container health check for the web process: ``python -m deniable.healthcheck``.

GETs ``/healthz`` (deniable/health.py: database, cache, broker) on the local gunicorn and exits 0
only on a 200. Python's ``urllib``, so the slim image needs no curl. The request names a host from
``ALLOWED_HOSTS`` (an operator who sets only ``example.org`` would otherwise get a 400 for
``127.0.0.1``); ``/healthz`` is exempt from the HTTPS redirect (settings/prod.py).
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8000/healthz"


def probe_host(allowed_hosts: str) -> str:
    """The first usable name in a comma-separated ``ALLOWED_HOSTS`` (``.example.org`` matches
    ``example.org``; ``*`` matches anything), else ``localhost``."""
    for raw in allowed_hosts.split(","):
        host = raw.strip().lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def check(url: str, host: str, timeout: float = 5.0) -> tuple[bool, str]:
    if not url.startswith(("http://", "https://")):
        return False, f"not an http(s) URL: {url!r}"
    request = urllib.request.Request(url, headers={"Host": host})  # noqa: S310 — scheme checked
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status == 200, f"HTTP {response.status}"
    except urllib.error.HTTPError as exc:  # 503 "degraded", 400 bad host, …
        return False, f"HTTP {exc.code}: {exc.read(300).decode(errors='replace')}"
    except (urllib.error.URLError, OSError) as exc:
        return False, str(exc)


def main() -> int:
    url = os.environ.get("DENIABLE_HEALTHCHECK_URL", DEFAULT_URL)
    healthy, detail = check(url, probe_host(os.environ.get("ALLOWED_HOSTS", "")))
    if not healthy:
        print(f"{url}: {detail}", file=sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
