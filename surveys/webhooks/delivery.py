"""Sending one webhook POST: signed, to a checked address, no redirects, a short timeout.

* The signature is ``sha256=<hex HMAC-SHA256 of the raw body with the hook's secret>`` in
  ``X-Deniable-Signature``; the receiver recomputes it over the bytes it received.
* The URL is checked again right before the send (:func:`surveys.webhooks.addresses.resolve`) and
  the connection goes to the address that was checked, with the host name in the ``Host`` header
  and TLS's server name, so DNS rebinding between the check and the connection cannot reach an
  internal service.
* ``http.client`` never follows a redirect: a 3xx is an answer like any non-2xx (not delivered).
* Each connection and read times out after ``TIMEOUT`` seconds; at most 1 KiB of the answer is
  read (it is not kept).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import socket
import ssl
from dataclasses import dataclass

from surveys.webhooks.addresses import RefusedURL, Target, resolve

TIMEOUT = 5.0
USER_AGENT = "Deniable-Webhook/1"
SIGNATURE_HEADER = "X-Deniable-Signature"


def signature(secret: str, body: bytes) -> str:
    """The header's value: ``sha256=`` and the hex HMAC-SHA256 of ``body`` with ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to the checked address (never a second lookup of the name)."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """An HTTPS connection to the checked address; the certificate is verified for the name."""

    def __init__(self, target: Target, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=timeout, context=self._tls)
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


@dataclass(frozen=True)
class Answer:
    """How one send went: the HTTP status (None: no answer) and, if it failed, why."""

    status: int | None
    error: str

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def send(url: str, secret: str, body: bytes) -> Answer:
    """POST ``body`` to ``url`` signed with ``secret``. Never raises for the network or the
    receiver: a refused URL, a timeout, a TLS or connection error is an :class:`Answer` without
    a status."""
    try:
        target = resolve(url)
    except RefusedURL as exc:
        return Answer(None, f"refused: {exc}")
    connection: http.client.HTTPConnection = (
        _PinnedHTTPS(target, TIMEOUT) if target.scheme == "https" else _PinnedHTTP(target, TIMEOUT)
    )
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: signature(secret, body),
    }
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(1024)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, f"{type(exc).__name__}: {exc}"[:200])
    finally:
        connection.close()
    return Answer(status, "" if 200 <= status < 300 else f"HTTP {status}")
