"""The smoke tests' server handle, window sizes and screenshots (the ``server`` fixture in this
folder's conftest builds the :class:`Server`; import this module, never the conftest)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO_USER = ("demo", "demo-password-123")  # the README's published demo login
SCREENSHOTS = ROOT / "var" / "smoke"
# A fresh shell's environment: nothing that would make the clone's `make run` use CI's services,
# settings or virtualenv instead of its embedded defaults.

TIMINGS: dict[str, float] = {}


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return 0


@dataclass
class Server:
    base: str
    log: Path | None = None
    token: str = field(default="", init=False)

    def log_tail(self, lines: int = 60) -> str:
        if self.log is None or not self.log.exists():
            return "(no log)"
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def api(self, method: str, path: str, body: Any = None, *, auth: bool = True) -> Any:
        """JSON API call (stdlib only); returns the decoded body, raises on a non-2xx."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}/api/v1{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if auth:
            if not self.token:
                self.token = self.api(
                    "POST", "/auth/token/", {"username": DEMO_USER[0], "password": DEMO_USER[1]},
                    auth=False,
                )["token"]  # fmt: skip
            request.add_header("Authorization", f"Token {self.token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}  # fmt: skip
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def screenshot(page: Any, name: str) -> None:
    """Full-page screenshots for people to look at (var/smoke/, not in git)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
