"""Per-survey submission rate limit: a fixed-window counter in the cache that fails open.

Why per survey and not per client: Deniable keeps no client addresses with what it may store, not
even in a cache (docs/privacy-model.md#unlinkability), so the unit it counts submissions by is the
survey. The limit bounds how fast anyone can flood one survey with fabricated reports; the
default is far above what real respondents do.

Only a post that could be stored is charged to the survey (:mod:`surveys.collection.admission`):
junk —
an invalid body, a missing, unknown or spent token — is charged to its sender's own allowance
(:func:`junk_rate_check`), so junk cannot lock real invitees out (issue 21, item 13). That
counter is keyed by an HMAC of the client address under a random salt that lives one window
in the cache: it is never kept with anything stored, and after two windows nobody (not even
with the cache and the secret key) can tell whose counter it was.

Why fail open: a submission must never depend on Redis (docs/architecture.md#submission-flow). When
the cache errors or times out, the limiter steps aside for ``DENIABLE_RATE_LIMIT_BACKOFF_SECONDS``
so a hung Redis costs at most one socket timeout per process per back-off window, not one per
request.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from deniable.errors import DomainError, ErrorCode

logger = logging.getLogger(__name__)

_cache_down_until = 0.0  # process-local circuit breaker (monotonic seconds)


class RateLimited(DomainError):
    status_code = 429
    code = ErrorCode.RATE_LIMITED


def _window_seconds() -> int:
    return int(getattr(settings, "DENIABLE_SUBMISSION_RATE_WINDOW_SECONDS", 60))


def _limit() -> int:
    return int(getattr(settings, "DENIABLE_SUBMISSION_RATE_LIMIT", 6000))


def _junk_limit() -> int:
    return int(settings.DENIABLE_JUNK_RATE_LIMIT)


def submission_rate_check(
    *, survey_id: int, now: float | None = None, scope: str = "submissions"
) -> None:
    """Count one submission attempt for the survey; raise :class:`RateLimited` past the limit.

    ``scope`` keeps a separate counter with the same limit for other respondent requests (the
    invitation check), so checks never eat into the submissions' allowance.
    """
    _charge(lambda bucket: f"rl:{scope}:{survey_id}:{bucket}", _limit(), now)


def junk_rate_check(*, client: str, now: float | None = None) -> None:
    """Count one post that could not be stored, against its sender (``client``: the address);
    raise :class:`RateLimited` past ``DENIABLE_JUNK_RATE_LIMIT`` per window."""

    def key(bucket: int) -> str:
        window = _window_seconds()
        salt = cache.get_or_set(f"rl:junk-salt:{bucket}", secrets.token_hex(16), window * 2)
        digest = hmac.new(str(salt).encode(), client.encode(), hashlib.sha256).hexdigest()
        return f"rl:junk:{digest[:32]}:{bucket}"

    _charge(key, _junk_limit(), now, sender=True)


def _charge(
    key_of: Callable[[int], str], limit: int, now: float | None, *, sender: bool = False
) -> None:
    global _cache_down_until
    if limit <= 0:
        return
    clock = time.monotonic()
    if clock < _cache_down_until:
        return
    window = _window_seconds()
    now = time.time() if now is None else now
    bucket = int(now // window)
    try:
        key = key_of(bucket)
        try:
            cache.add(key, 0, timeout=window * 2)
            count = cache.incr(key)
        except ValueError:  # the key expired between add and incr: start the window again
            cache.set(key, 1, timeout=window * 2)
            count = 1
    except Exception as exc:  # noqa: BLE001 — any cache failure: fail open, briefly
        _cache_down_until = clock + float(
            getattr(settings, "DENIABLE_RATE_LIMIT_BACKOFF_SECONDS", 30)
        )
        logger.warning("rate limiter unavailable (%s); failing open", type(exc).__name__)
        return
    if count > limit:
        retry_after = int(window - (now % window)) + 1
        if sender:
            detail = _(
                "Too many posts that could not be recorded came from your connection; try again "
                "in %(seconds)s s."
            )
        else:
            detail = _("Too many requests for this survey right now; try again in %(seconds)s s.")
        raise RateLimited(
            detail % {"seconds": retry_after},
            retry_after=retry_after,
            limit="sender" if sender else "survey",
        )
