"""Per-survey submission rate limit: a fixed-window counter in the cache that fails open.

Why per survey and not per client: Deniable keeps no client addresses, not even in a cache
(docs/privacy-model.md#unlinkability), so the unit it can count is the survey. The limit bounds how
fast anyone can flood one survey with fabricated reports; the default is far above what real
respondents do.

Why fail open: a submission must never depend on Redis (docs/architecture.md#submission-flow). When
the cache errors or times out, the limiter steps aside for ``DENIABLE_RATE_LIMIT_BACKOFF_SECONDS``
so a hung Redis costs at most one socket timeout per process per back-off window, not one per
request.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from deniable.errors import DomainError

logger = logging.getLogger(__name__)

_cache_down_until = 0.0  # process-local circuit breaker (monotonic seconds)


class RateLimited(DomainError):
    status_code = 429
    code = "rate_limited"


def _window_seconds() -> int:
    return int(getattr(settings, "DENIABLE_SUBMISSION_RATE_WINDOW_SECONDS", 60))


def _limit() -> int:
    return int(getattr(settings, "DENIABLE_SUBMISSION_RATE_LIMIT", 6000))


def submission_rate_check(
    *, survey_id: int, now: float | None = None, scope: str = "submissions"
) -> None:
    """Count one submission attempt for the survey; raise :class:`RateLimited` past the limit.

    ``scope`` keeps a separate counter with the same limit for other respondent requests (the
    invitation check), so checks never eat into the submissions' allowance.
    """
    global _cache_down_until
    limit = _limit()
    if limit <= 0:
        return
    clock = time.monotonic()
    if clock < _cache_down_until:
        return
    window = _window_seconds()
    now = time.time() if now is None else now
    bucket = int(now // window)
    key = f"rl:{scope}:{survey_id}:{bucket}"
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
        raise RateLimited(
            _("Too many requests for this survey right now; try again in %(seconds)s s.")
            % {"seconds": retry_after},
            retry_after=retry_after,
        )
