"""axe-core in Playwright: ``axe_check(page)`` returns the serious and critical violations.

axe is injected from ``$AXE_JS`` (default: ``node_modules/axe-core/axe.min.js`` under the repo
root, installed from the repo's package.json), else from /work/axe/… when that exists (the
shared ad-hoc copy on the development machine). A test using it is skipped, never passed, when
axe-core cannot be found. The page's context must be made with ``bypass_csp=True``: axe goes in
as an inline script, which the site's Content-Security-Policy rightly refuses.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FALLBACK = Path("/work/axe/node_modules/axe-core/axe.min.js")
BLOCKING = ("serious", "critical")


def axe_path() -> Path | None:
    configured = Path(os.environ.get("AXE_JS", ROOT / "node_modules" / "axe-core" / "axe.min.js"))
    if configured.exists():
        return configured
    return FALLBACK if FALLBACK.exists() else None


def axe_check(page: Any, *, impacts: tuple[str, ...] = BLOCKING) -> list[dict[str, Any]]:
    """Run axe (WCAG 2.0–2.2 A/AA and best-practice rules) on the page as it is now; return the
    violations of the given impacts, each with its rule id, help text and failing targets."""
    path = axe_path()
    if path is None:
        pytest.skip("axe-core not found (set AXE_JS or npm install in the repo)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(path))
    result = page.evaluate(
        """() => axe.run(document, {
            runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                            "wcag22aa", "best-practice"]},
            resultTypes: ["violations"],
        })"""
    )
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "targets": [n["target"] for n in v["nodes"]][:5],
        }
        for v in result["violations"]
        if v["impact"] in impacts
    ]
