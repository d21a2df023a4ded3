"""Processes the tests and benchmarks start themselves: free loopback ports, polling, and a
private ``redis-server`` that may be paused, killed or flushed without touching the shared one.

Every helper here is safe under pytest-xdist: ports come from the kernel (``bind(0)``), never from
a fixed list, and a :class:`PrivateRedis` keeps its files in a directory its caller owns.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice for ``bind(0)``)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.1) -> bool:
    """Poll ``predicate`` every ``interval`` seconds for ``timeout`` seconds; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


@dataclass
class PrivateRedis:
    """``redis-server --port <port> --save "" --appendonly no`` with its files in ``workdir``."""

    port: int
    workdir: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                "--logfile",
                str(self.workdir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not wait_until(self.ping, 10):
            raise RuntimeError("private redis-server did not start")

    def ping(self) -> bool:
        import redis

        try:
            client = redis.Redis(port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5)
            return bool(client.ping())
        except Exception:  # noqa: BLE001
            return False

    def flush(self) -> None:
        import redis

        redis.Redis(port=self.port, socket_timeout=2).flushall()

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
