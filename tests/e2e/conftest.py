"""Browser fixtures: Debian's Chromium driven by Playwright's sync API (never `playwright install`).

The browser is shared by the whole session; every test opens fresh contexts (fresh storage).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_service

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageProblems:
    """Console errors (CSP violations land here) and uncaught exceptions of a page."""

    def __init__(self, page: Any) -> None:
        self.messages: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.messages.append(f"pageerror: {exc}"))

    def _console(self, msg: Any) -> None:
        if msg.type in ("error", "warning") and "favicon" not in msg.text:
            self.messages.append(f"{msg.type}: {msg.text}")


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Factory: ``page, problems = new_page(**context_options)``; contexts are closed after."""
    contexts: list[Any] = []

    def make(**options: Any) -> tuple[Any, PageProblems]:
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        return page, PageProblems(page)

    yield make
    for context in contexts:
        context.close()
