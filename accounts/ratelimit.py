"""Fixed-window counters in the cache for the account pages (sign-up, password reset).

Keyed by what is being attempted (an email digest, or everything at once), never by a client
address: behind the proxy the address is the proxy's or a forgeable header (see the axes
settings). Fails open: a cache outage must not lock researchers out of their accounts.
"""

from __future__ import annotations

import hashlib
import logging

from django.core.cache import cache

log = logging.getLogger(__name__)


def allow(scope: str, subject: str, *, limit: int, window_seconds: int) -> bool:
    """Count one attempt; False once more than ``limit`` were made in the current window."""
    if limit <= 0:
        return True
    key = "acct-rl:" + scope + ":" + hashlib.sha256(subject.encode()).hexdigest()[:32]
    try:
        if cache.add(key, 1, timeout=window_seconds):
            return True
        return int(cache.incr(key)) <= limit
    except Exception:  # noqa: BLE001 — any cache failure: let the attempt through
        log.warning("account rate limit unavailable (%s); allowing", scope)
        return True
