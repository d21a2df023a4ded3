"""A real local HTTP receiver for the webhook tests: http.server in a thread, recording each
request (path, headers, raw body) and answering the statuses it is told to, in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    statuses: list[int]  # answered in order; the last one again once exhausted
    received: list[Received] = field(default_factory=list)
    redirect_to: str = ""

    def wait_for(self, n: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.received)


@contextmanager
def receiver(statuses: list[int] | None = None, redirect_to: str = "") -> Iterator[Receiver]:
    state = Receiver("", list(statuses or [200]), redirect_to=redirect_to)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            state.received.append(Received(self.path, dict(self.headers.items()), body))
            i = min(len(state.received), len(state.statuses)) - 1
            status = state.statuses[i]
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", state.redirect_to)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
