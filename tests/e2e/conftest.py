"""Browser fixtures: Debian's Chromium driven by Playwright's sync API (never `playwright install`);
the binary, its flags and the page helpers are in :mod:`testsupport.browser`.

The browser is shared by the whole session; every test opens fresh contexts (fresh storage).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from testsupport.browser import CHROMIUM, PageMaker, chromium
from testsupport.services import require_service


@pytest.fixture(scope="module", autouse=True)
def _allow_orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an asyncio loop in this thread; Django then refuses ORM calls
    from the test body ("cannot call this from an async context") although they are plain
    synchronous calls between browser steps. Scoped to the browser tests only: set process-wide
    it would leak into other tests (and into `check --deploy`, which rightly warns about it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


# Module scope: Playwright's loop must be gone before tests outside this folder run, since
# DJANGO_ALLOW_ASYNC_UNSAFE is only set for the tests in here.
@pytest.fixture(scope="module")
def browser(_allow_orm_beside_playwright: None) -> Iterator[Any]:
    require_service(CHROMIUM.exists(), "chromium (/usr/bin/chromium)")
    with chromium() as browser:
        yield browser


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Factory: ``page, problems = new_page(**context_options)``; contexts are closed after.

    A step may wait up to 30 s: under ``make test`` two workers' Chromiums and live servers share
    the cores with the rest of the suite, and 10 s was once exceeded on a loaded machine. Nothing
    here waits for a timeout on purpose, so a passing test takes no longer."""
    make = PageMaker(browser, timeout_ms=30_000)
    yield make
    make.close_all()
