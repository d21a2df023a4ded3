"""Debian's Chromium driven by Playwright's sync API (never ``playwright install``): the binary,
its flags, and a collector of a page's console errors, for the e2e and smoke tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class PageProblems:
    """Console errors (CSP violations land here) and uncaught exceptions of a page."""

    def __init__(self, page: Any) -> None:
        self.messages: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.messages.append(f"pageerror: {exc}"))

    def _console(self, msg: Any) -> None:
        if msg.type in ("error", "warning") and "favicon" not in msg.text:
            self.messages.append(f"{msg.type}: {msg.text}")


class PageMaker:
    """``page, problems = make(**context_options)``: a fresh browser context per call (fresh
    storage), every one closed by :meth:`close_all`."""

    def __init__(self, browser: Any, timeout_ms: int) -> None:
        self.browser = browser
        self.timeout_ms = timeout_ms
        self.contexts: list[Any] = []

    def __call__(self, **options: Any) -> tuple[Any, PageProblems]:
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(self.timeout_ms)
        return page, PageProblems(page)

    def close_all(self) -> None:
        for context in self.contexts:
            context.close()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's sync API) for the duration of the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
