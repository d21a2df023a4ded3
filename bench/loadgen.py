"""A small closed-loop HTTP load generator for respondent submissions (loopback only).

Why not wrk: the fault scenarios need to know *which* submissions the server acknowledged (every
2xx ``submission_id`` must be found in the database afterwards) and *when* each error happened
(to check that errors stay inside a fault window). So each request is recorded: start time
(monotonic), latency, status (0 = connection error/timeout) and the submission id.

Each of ``concurrency`` threads holds one keep-alive :class:`http.client.HTTPConnection` and posts
a fresh uuid4 submission after the previous answer (closed loop: the offered load adapts to the
server, so an overload shows up as latency, not as an unbounded queue). A run is bounded by a
request count AND a duration. The GIL limits one Python process to a few thousand requests/s,
far above what a 2-core machine running the server too can absorb.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# A body factory takes the thread's RNG (a seeded numpy Generator: the ``random`` module is banned
# in this code base) and returns (submission_id, JSON body bytes).
BodyFactory = Callable[[np.random.Generator], tuple[str, bytes]]


@dataclass(frozen=True)
class Sample:
    start: float  # time.monotonic() when the request was sent
    latency: float  # seconds until the whole response was read (or the error)
    status: int  # HTTP status; 0 = connection error or timeout
    submission_id: str
    error: str = ""
    body: bytes = field(default=b"", repr=False, compare=False)  # kept so a client can retry

    @property
    def end(self) -> float:
        return self.start + self.latency

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


@dataclass
class LoadResult:
    samples: list[Sample]
    started: float
    finished: float
    concurrency: int

    @property
    def duration(self) -> float:
        return max(self.finished - self.started, 1e-9)

    def window(self, start: float, end: float) -> LoadResult:
        """The requests *sent* in [start, end) (monotonic times)."""
        picked = [s for s in self.samples if start <= s.start < end]
        return LoadResult(
            picked, max(start, self.started), min(end, self.finished), self.concurrency
        )

    def overlapping(self, start: float, end: float) -> LoadResult:
        """The requests in flight at some point of [start, end): what a fault window hit."""
        picked = [s for s in self.samples if s.start < end and s.end >= start]
        return LoadResult(
            picked, max(start, self.started), min(end, self.finished), self.concurrency
        )

    @property
    def ok_ids(self) -> list[str]:
        return [s.submission_id for s in self.samples if s.ok]

    def summary(self) -> dict[str, Any]:
        statuses = [s.status for s in self.samples]
        latencies = [s.latency for s in self.samples]
        ok = sum(1 for c in statuses if 200 <= c < 300)
        return {
            "concurrency": self.concurrency,
            "seconds": round(self.duration, 2),
            "requests": len(statuses),
            "2xx": ok,
            "4xx": sum(1 for c in statuses if 400 <= c < 500),
            "5xx": sum(1 for c in statuses if c >= 500),
            "503": sum(1 for c in statuses if c == 503),
            "conn_errors": sum(1 for c in statuses if c == 0),
            "throughput_rps": round(ok / self.duration, 1),
            "p50_ms": round(percentile(latencies, 50) * 1000, 1),
            "p99_ms": round(percentile(latencies, 99) * 1000, 1),
            "max_ms": round(max(latencies, default=float("nan")) * 1000, 1),
        }


@dataclass
class _Counter:
    limit: int
    value: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> bool:
        with self.lock:
            if self.value >= self.limit:
                return False
            self.value += 1
            return True


def _post(conn: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str]) -> int:
    conn.request("POST", path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()  # drain, or the keep-alive connection cannot be reused
    if response.getheader("Connection", "").lower() == "close":
        conn.close()
    return response.status


def run_load(
    *,
    host: str,
    port: int,
    path: str,
    body_factory: BodyFactory,
    concurrency: int,
    duration: float,
    max_requests: int = 1_000_000,
    timeout: float = 15.0,
    seed: int = 0,
    stop: threading.Event | None = None,
) -> LoadResult:
    """POST fresh submissions from ``concurrency`` keep-alive connections until ``duration``
    seconds have passed, ``max_requests`` were sent or ``stop`` is set; return every record."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("the load generator only targets loopback")
    headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
    counter = _Counter(max_requests)
    per_thread: list[list[Sample]] = [[] for _ in range(concurrency)]
    started = time.monotonic()
    deadline = started + duration

    def worker(index: int) -> None:
        rng = np.random.default_rng([seed, index])
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        out = per_thread[index]
        try:
            while (
                time.monotonic() < deadline
                and not (stop is not None and stop.is_set())
                and counter.take()
            ):
                submission_id, body = body_factory(rng)
                t0 = time.monotonic()
                try:
                    code = _post(conn, path, body, headers)
                    out.append(Sample(t0, time.monotonic() - t0, code, submission_id, body=body))
                except (OSError, http.client.HTTPException) as exc:
                    out.append(
                        Sample(
                            t0, time.monotonic() - t0, 0, submission_id, type(exc).__name__, body
                        )
                    )
                    conn.close()  # reconnect on the next request
                    time.sleep(0.05)  # do not spin on a refused port
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(duration + timeout + 30)
    samples = sorted((s for chunk in per_thread for s in chunk), key=lambda s: s.start)
    return LoadResult(samples, started, time.monotonic(), concurrency)


def resend(
    *, host: str, port: int, path: str, bodies: Iterable[bytes], timeout: float = 15.0
) -> list[int]:
    """POST bodies again one by one (a client retrying after an error: same submission id)."""
    headers = {"Content-Type": "application/json"}
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    codes = []
    try:
        for body in bodies:
            try:
                codes.append(_post(conn, path, body, headers))
            except (OSError, http.client.HTTPException):
                conn.close()
                codes.append(0)
    finally:
        conn.close()
    return codes


def json_body(submission_id: str, answers: dict[str, Any], randomizer: str = "browser") -> bytes:
    return json.dumps(
        {"submission_id": submission_id, "randomizer": randomizer, "answers": answers}
    ).encode()


def fresh_id() -> str:
    return str(uuid.uuid4())
