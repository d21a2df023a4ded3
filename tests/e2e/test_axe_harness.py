"""The axe-core harness itself (tests/e2e/axe.py): it finds what it must, filters by impact, says
where, and runs under the app's Content Security Policy without tripping it."""

from __future__ import annotations

import pytest

from tests.e2e.axe import AXE_VERSION, axe_violations, format_violations

pytestmark = pytest.mark.e2e

BROKEN = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Broken on purpose</h1>
<button id="nameless"></button>
<p id="faint" style="color:#ccc;background:#fff">Grey on white, far below 4.5:1.</p>
<img id="bare" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
</main></body></html>"""

CLEAN = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Fine</h1><button>Send</button><p>Black on white.</p></main></body></html>"""


def test_reports_serious_and_critical_violations_readably(new_page):
    page, _ = new_page()
    page.set_content(BROKEN)
    found = {v.rule: v for v in axe_violations(page)}
    # button-name and image-alt are critical, color-contrast serious in axe-core 4.x.
    assert {"button-name", "image-alt", "color-contrast"} <= set(found), found
    assert found["button-name"].targets == ("#nameless",)
    assert found["color-contrast"].targets == ("#faint",)
    text = format_violations(list(found.values()), where="the test page")
    assert text.startswith(f"{len(found)} axe-core violation(s) on the test page")
    assert "[critical] button-name" in text and "at #nameless" in text
    assert "dequeuniversity.com/rules/axe/" in text  # the help link


def test_impact_filter_and_include(new_page):
    page, _ = new_page()
    page.set_content(BROKEN)
    critical = axe_violations(page, impact=("critical",))
    assert {v.impact for v in critical} == {"critical"}
    assert "color-contrast" not in {v.rule for v in critical}
    only_faint = axe_violations(page, include="#faint")
    assert [v.rule for v in only_faint] == ["color-contrast"]
    page.set_content(CLEAN)
    assert axe_violations(page) == []


def test_runs_under_the_apps_csp_without_a_console_error(live_server, new_page):
    """The login page is served with the app's CSP (script-src 'self' + nonces): injecting axe
    must neither be refused nor log a CSP violation."""
    page, problems = new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    assert "script-src" in (page.context.request.get(page.url).headers["content-security-policy"])
    axe_violations(page)
    assert page.evaluate("window.axe.version") == AXE_VERSION
    assert problems.messages == []
