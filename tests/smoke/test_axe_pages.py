"""axe-core over every page the smoke run visits, at 360 and 1280 px (issue 10, Deliver 3).

One test, so its result reads as one line in CI: 0 serious or critical violations on the
respondent page (JS on: first question, summary, thank-you; JS off: the physical-coin form and
its thank-you page), the login page, the survey list, every dashboard section, the builder and
the release panel (with its confirmation dialog if it has one, and with a release's results). On
failure it lists every violation by page and width, with the rule, the elements and axe's help
link.
Screenshots of each page land in var/smoke/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import axe_violations, format_violations
from tests.smoke import ui
from tests.smoke.server import DESKTOP, PHONE, Server, screenshot
from tests.smoke.test_first_hour import DEMO, answer_all, log_in

pytestmark = pytest.mark.smoke

WIDTHS = {360: PHONE, 1280: DESKTOP}


class Findings:
    def __init__(self) -> None:
        self.pages: list[str] = []
        self.reports: list[str] = []

    def check(self, page: Any, where: str, *, include: str | None = None) -> None:
        self.pages.append(where)
        screenshot(page, where.replace(" ", "-").replace(",", ""))
        found = axe_violations(page, include=include)
        if found:
            self.reports.append(format_violations(found, where=where))


def respondent_pages(server: Server, new_page: Any, width: int, findings: Findings) -> None:
    questions = server.api("GET", f"/surveys/{DEMO}/")["questions"]
    page, _ = new_page(**WIDTHS[width])
    page.goto(f"{server.base}/s/{DEMO}/")
    findings.check(page, f"respondent JS {width}px")
    answer_all(page, questions)
    expect(page.get_by_role("button", name=ui.SEND)).to_be_visible()
    findings.check(page, f"respondent JS summary {width}px")
    page.get_by_role("button", name=ui.SEND).click()
    expect(ui.thanks(page)).to_be_visible()
    findings.check(page, f"respondent JS thank-you {width}px")

    # Without JavaScript: Playwright cannot evaluate anything (axe included) in a context with
    # JavaScript disabled, so the page's own scripts are refused instead. The pages have no
    # inline scripts (CSP) and no <noscript>, so this renders exactly what a no-JS browser shows.
    page, _ = new_page(**WIDTHS[width])
    page.route(re.compile(r"\.js(\?.*)?$"), lambda route: route.abort())
    page.goto(f"{server.base}/s/{DEMO}/")
    expect(page.get_by_role("button", name=ui.NOJS_SEND)).to_be_visible()  # the plain form
    findings.check(page, f"respondent no-JS {width}px")
    page.goto(f"{server.base}/s/{DEMO}/thanks/")
    findings.check(page, f"respondent no-JS thank-you {width}px")


def researcher_pages(server: Server, new_page: Any, width: int, findings: Findings) -> None:
    page, _ = new_page(**WIDTHS[width])
    page.goto(f"{server.base}/accounts/login/")
    findings.check(page, f"login {width}px")
    log_in(page, server.base)
    page.goto(f"{server.base}/surveys/")
    findings.check(page, f"survey list {width}px")
    page.goto(f"{server.base}/surveys/{DEMO}/")
    findings.check(page, f"dashboard overview {width}px")
    # Every section of the dashboard (issue 22.10), reached by its link in the section bar.
    for section in ("results", "analysis", "sharing"):
        page.locator(f".section-nav a[data-section={section}]").click()
        page.wait_for_url(f"**/surveys/{DEMO}/{section}/")
        if section == "results":
            expect(ui.estimates_table(page)).to_be_visible()
        findings.check(page, f"dashboard {section} {width}px")
    page.goto(f"{server.base}/surveys/new/")
    findings.check(page, f"builder {width}px")

    page.goto(f"{server.base}/surveys/{DEMO}/releases/")
    panel = ui.release_panel(page)
    panel.get_by_label(ui.EPSILON).first.fill("0.1")
    ui.wait_until_settled(page)
    ui.release_button(panel).click()
    dialog = ui.confirm_dialog(page)
    try:
        dialog.wait_for(state="visible", timeout=10_000)
        has_dialog = True
    except Exception:  # noqa: BLE001 — a panel without a confirmation step
        has_dialog = False
    if has_dialog:
        findings.check(page, f"release confirmation dialog {width}px")
        dialog.get_by_role("button", name=ui.CONFIRM).click()
    expect(ui.results_table(panel)).to_be_visible(timeout=30_000)
    findings.check(page, f"release panel with results {width}px")


def test_axe_no_serious_or_critical_violations_on_every_page(server: Server, new_page: Any):
    findings = Findings()
    for width in WIDTHS:
        for visit in (respondent_pages, researcher_pages):
            try:
                visit(server, new_page, width, findings)
            except Exception as error:  # noqa: BLE001 — report it with the violations, go on
                findings.reports.append(
                    f"could not finish {visit.__name__} at {width}px (after "
                    f"{findings.pages[-1] if findings.pages else 'no page'}): {_gist(error)}"
                )
    assert not findings.reports, "\n\n".join(findings.reports)
    assert len(findings.pages) >= 2 * 10, findings.pages  # every page at both widths


def _gist(error: Exception) -> str:
    """The first line of a Playwright error, plus why a click could not land, once."""
    lines = [line.strip(" -") for line in str(error).splitlines()] or [repr(error)]
    why = dict.fromkeys(line for line in lines if "intercepts pointer events" in line)
    return "; ".join([lines[0], *why])
