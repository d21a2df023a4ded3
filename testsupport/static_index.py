"""One WhiteNoise index of the static files per test process, not one per test client.

Django's test ``Client`` makes a new handler, so a new middleware chain, on its first request,
and WhiteNoise's middleware indexes every file the static finders list when it is made (a
``StaticFile`` with its stat and its headers for each of ~230 files). Profiled over
``tests/surveys`` (cProfile, 2026-11-27): 847 chains, and that index was 13 % of the run's CPU.
A server makes its chain once per process; :func:`share_the_finders_index` makes the suite do
the same, per set of settings the index depends on, so a test that overrides one of them still
gets an index built under its settings. What each chain serves is unchanged: the same files, the
same headers, looked up the same way (tests/test_static_index.py holds this).
"""

from __future__ import annotations

from typing import Any

from whitenoise.middleware import WhiteNoiseMiddleware

_ORIGINAL = WhiteNoiseMiddleware.add_files_from_finders
_INDEXES: dict[str, dict[str, Any]] = {}


def index_key() -> str:
    """Every setting the finders' index is built from (WhiteNoise's own and the finders')."""
    from django.conf import settings

    names = sorted(name for name in dir(settings) if name.startswith("WHITENOISE_"))
    names += ["DEBUG", "FORCE_SCRIPT_NAME", "INSTALLED_APPS", "STATICFILES_DIRS"]
    names += ["STATICFILES_FINDERS", "STATIC_URL"]
    return repr([(name, getattr(settings, name, None)) for name in names])


def _add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
    key = index_key()
    found = _INDEXES.get(key)
    if found is None:
        # Built into an empty dictionary, then merged as WhiteNoise would have added it: over the
        # STATIC_ROOT files the middleware may already hold (the finders' copy wins).
        held, self.files = self.files, {}
        try:
            _ORIGINAL(self)
            found = self.files
        finally:
            self.files = held
        _INDEXES[key] = found
    self.files.update(found)


def share_the_finders_index() -> None:
    WhiteNoiseMiddleware.add_files_from_finders = _add_files_from_finders  # type: ignore[method-assign]


def build_unshared(middleware: WhiteNoiseMiddleware) -> dict[str, Any]:
    """The index WhiteNoise itself builds for ``middleware``'s settings (for the test)."""
    held, middleware.files = middleware.files, {}
    try:
        _ORIGINAL(middleware)
        return middleware.files
    finally:
        middleware.files = held
