"""Exact uniform integers from the OS CSPRNG, buffered (issue 13: sampler speed).

:class:`BufferedSecretsSource` reads the CSPRNG it is given (:func:`secrets.token_bytes`, passed by
:mod:`dpcore.central.noise`) 256 bytes at a time and hands
out exact uniform integers on [0, n) by rejection: take k = bit_length(n − 1) unused bits, accept
if < n (the method of :func:`secrets.randbelow`, which however makes one ``os.urandom`` system
call per integer). Every bit is used at most once. ``os`` is imported only for
:func:`os.register_at_fork`: the buffer is per thread and dropped in a forked child, so a Celery
prefork worker never reuses its parent's bits (tests/dpcore/central/test_noise_source.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

__all__ = ["BufferedSecretsSource"]


class BufferedSecretsSource:
    """The production source: OS CSPRNG bits (:func:`secrets.token_bytes`), exact uniform
    integers by rejection: draw k = bit_length(n − 1) fresh bits, accept if < n (each accepted
    value is uniform on [0, n); the same method as :func:`secrets.randbelow`).

    Speed (issue 13): ``secrets.randbelow`` makes one ``os.urandom`` system call per integer,
    which was most of a draw's cost; here the CSPRNG bytes are read 256 at a time and consumed
    bit by bit, every bit used once. The buffer is per thread (two threads never share bits) and
    emptied in a forked child (a Celery prefork worker must not reuse its parent's bits).
    """

    _REFILL_BYTES = 256

    def __init__(self, token_bytes: Callable[[int], bytes]) -> None:
        self._token_bytes = token_bytes  # the CSPRNG: secrets.token_bytes in production
        self._local = threading.local()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._local = threading.local()

    def randbelow(self, n: int) -> int:
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError("randbelow needs n ≥ 1")
        state = self._local
        pool: int = getattr(state, "pool", 0)
        avail: int = getattr(state, "avail", 0)
        k = (n - 1).bit_length()
        mask = (1 << k) - 1
        while True:
            if avail < k:
                size = max(self._REFILL_BYTES, (k + 7) // 8)
                pool |= int.from_bytes(self._token_bytes(size), "little") << avail
                avail += 8 * size
            r = pool & mask
            pool >>= k
            avail -= k
            if r < n:
                state.pool, state.avail = pool, avail
                return r
