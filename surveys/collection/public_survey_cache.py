"""The per-process cache of the surveys submissions go to, and its invalidation.

The submission endpoint is the hot path, and the survey + questions lookup was two of its
queries. Safe to serve a few seconds stale because (1) an open survey's questions and designs are
frozen (survey_update refuses non-drafts), and (2) whether the survey still accepts answers is
re-checked by the submission INSERT itself (services.submission_create), so closing a survey
takes effect at once in every process. Drafts are never cached (they are a 404 until opened).

Readers call :func:`survey_get_public_cached`; a service that learns a cached survey is stale
(an INSERT refused because the survey closed) calls :func:`invalidate`.
"""

from __future__ import annotations

import time

from surveys.models import Survey
from surveys.selectors.surveys import survey_get_public

PUBLIC_SURVEY_TTL_SECONDS = 5.0
_PUBLIC_CACHE_MAX = 1024
_public_cache: dict[str, tuple[float, Survey]] = {}


def survey_get_public_cached(*, slug: str) -> Survey:
    """``survey_get_public`` through the per-process cache; read-only use only."""
    now = time.monotonic()
    hit = _public_cache.get(slug)
    if hit is not None and now - hit[0] < PUBLIC_SURVEY_TTL_SECONDS:
        return hit[1]
    survey = survey_get_public(slug=slug)
    list(survey.questions.all())  # the prefetch is evaluated now, once, for every reader
    if len(_public_cache) >= _PUBLIC_CACHE_MAX:
        _public_cache.clear()  # crude but bounded; refilled at one query pair per survey
    _public_cache[slug] = (now, survey)
    return survey


def invalidate(*, slug: str | None = None) -> None:
    """Forget one cached survey (all of them with no slug): after a refused insert, and tests."""
    if slug is None:
        _public_cache.clear()
    else:
        _public_cache.pop(slug, None)
