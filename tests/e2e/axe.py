"""axe-core in Playwright: accessibility violations of the page as it is now.

axe-core is pinned in the repository's package.json / package-lock.json and installed with
``npm ci`` (.ci/run does it). ``axe_violations(page)`` injects ``node_modules/axe-core/axe.min.js``
into the page and runs ``axe.run``. It is injected by evaluating the file through Playwright, not
with ``page.add_script_tag``: that adds an inline ``<script>``, which the app's Content Security
Policy (``script-src 'self'`` with nonces) rightly refuses, and ``bypass_csp`` would switch off the
very policy the browser tests watch (CSP violations are console errors there). Code evaluated over
the DevTools protocol is not subject to the page's CSP, and the page logs nothing.

``axe_violations`` returns the violations at the given impact levels, each with a message a person
can act on (rule, impact, what is wrong, where, and the help link), so a failing assertion says
what to fix::

    found = axe_violations(page)
    assert not found, format_violations(found, where="respondent, 360 px")

Playwright cannot evaluate in a context created with ``java_script_enabled=False`` (the call never
returns): to check a page as a browser without JavaScript shows it, keep JavaScript on and refuse
the page's own scripts with ``page.route`` (tests/smoke/test_axe_pages.py does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testsupport.services import require_service

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"  # package.json pins the same


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    help_url: str
    targets: tuple[str, ...]
    summaries: tuple[str, ...]

    def message(self) -> str:
        lines = [f"[{self.impact}] {self.rule}: {self.help} ({len(self.targets)} element(s))"]
        for target, summary in zip(self.targets, self.summaries, strict=True):
            detail = " ".join(summary.split())
            lines.append(f"    at {target}: {detail[:300]}")
        lines.append(f"    see {self.help_url}")
        return "\n".join(lines)


def _inject(page: Any) -> None:
    require_service(AXE_JS.exists(), f"axe-core ({AXE_JS.relative_to(ROOT)}: run `npm ci`)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # The UMD bundle defines window.axe; `undefined` keeps the evaluation's value small.
        page.evaluate(AXE_JS.read_text(encoding="utf-8") + "\n;undefined")
    version = page.evaluate("window.axe.version")
    assert version == AXE_VERSION, f"axe-core {version} injected, {AXE_VERSION} expected"


def axe_violations(
    page: Any,
    impact: Iterable[str] = ("serious", "critical"),
    *,
    include: str | None = None,
) -> list[Violation]:
    """The page's axe-core violations whose impact is in ``impact`` (WCAG 2.0–2.2 A/AA rules and
    axe's best practices, as ``axe.run`` does by default). ``include``: a CSS selector to check
    only part of the page (e.g. one panel after it changed)."""
    _inject(page)
    raw = page.evaluate(
        """async (include) => {
            const result = await axe.run(include ? { include: [include] } : document,
                                         { resultTypes: ["violations"] });
            return result.violations.map(v => ({
                rule: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
                nodes: v.nodes.map(n => ({
                    target: n.target.map(String).join(" "),
                    summary: n.failureSummary || "",
                })),
            }));
        }""",
        include,
    )
    wanted = set(impact)
    return [
        Violation(
            rule=v["rule"],
            impact=v["impact"],
            help=v["help"],
            help_url=v["helpUrl"],
            targets=tuple(n["target"] for n in v["nodes"]),
            summaries=tuple(n["summary"] for n in v["nodes"]),
        )
        for v in raw
        if v["impact"] in wanted
    ]


def format_violations(violations: Sequence[Violation], *, where: str = "") -> str:
    head = f"{len(violations)} axe-core violation(s)" + (f" on {where}" if where else "")
    return "\n".join([head, *(v.message() for v in violations)])
