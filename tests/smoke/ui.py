"""Every page selector of the smoke run, in one place.

Controls are found by ARIA role and accessible name (what a screen-reader user hears), never by
CSS class or id, so restyling a page does not break the smoke run. When a page's wording changes
on purpose (another branch renames a button or adds a confirmation dialog), adjust the names
here and nowhere else.
"""

from __future__ import annotations

import re
from typing import Any

# --- respondent page (/s/<slug>/) ----------------------------------------------------------------
# Each question is a region named by its question text (<section aria-labelledby=…>).
FLIP = re.compile(r"^(flip|toss|draw|roll|spin|randomi[sz]e)", re.I)
SKIP_ANIMATION = re.compile(r"^skip", re.I)
NEXT = re.compile(r"^next", re.I)
SEND = re.compile(r"^send my answers", re.I)
THANKS = re.compile(r"thank you", re.I)
NOJS_SEND = SEND


def question(page: Any, text: str) -> Any:
    return page.get_by_role("region", name=text, exact=True)


def truth_button(region: Any, label: str) -> Any:
    """The true-answer buttons of a randomized question (JS on)."""
    return region.get_by_role("button", name=label, exact=True)


def option_radio(region: Any, label: str) -> Any:
    """A direct (not randomized) option, or the no-JS 'what the coins told you' radio."""
    return region.get_by_role("radio", name=label, exact=True)


def number_box(region: Any) -> Any:
    return region.get_by_role("spinbutton")


def thanks(page: Any) -> Any:
    return page.get_by_role("heading", name=THANKS)


# --- researcher pages -----------------------------------------------------------------------------
USERNAME = "Username"
PASSWORD = "Password"
LOG_IN = re.compile(r"^log in$", re.I)


def survey_link(page: Any, title: str) -> Any:
    """The survey's link in the survey list (/surveys/)."""
    return page.get_by_role("link", name=title, exact=True)


def respondents_region(page: Any) -> Any:
    return page.get_by_role("region", name="Respondents", exact=True)


def section_link(page: Any, name: str) -> Any:
    """A dashboard section's link in the bar under the survey's title (issue 22.10)."""
    return page.get_by_role("navigation", name="Survey sections").get_by_role(
        "link", name=name, exact=True
    )


def estimates_table(page: Any) -> Any:
    """The dashboard's table of debiased estimates (all respondents)."""
    return (
        page.get_by_role("region", name="Estimates", exact=True)
        .get_by_role("table")
        .filter(has=page.get_by_role("columnheader", name="Estimate", exact=True))
        .first
    )


# --- release panel (on the dashboard) -------------------------------------------------------------
def release_panel(page: Any) -> Any:
    # The first match: the panel may hold regions of its own ("Release history").
    return page.get_by_role("region", name=re.compile(r"release", re.I)).first


EPSILON = re.compile(r"^ε")  # the Laplace ε field's label
RELEASE = re.compile(r"^release", re.I)  # the panel's submit button
CONFIRM = re.compile(r"^(confirm|yes|spend|release)", re.I)  # its confirmation dialog, if any
DONE = re.compile(r"^done", re.I)  # a release's status in the history table
RESULT_HEADER = re.compile(r"noisy count", re.I)  # a column of the results table


def release_button(panel: Any) -> Any:
    # The first match: a confirmation dialog's own "Release…" button comes later in the panel.
    return panel.get_by_role("button", name=RELEASE).first


def confirm_dialog(page: Any) -> Any:
    return page.get_by_role("dialog")


def wait_until_settled(page: Any) -> None:
    """The release panel sets aria-busy while its preview, a request or a poll is under way
    (static/js/releases.js): act on it only once it has settled, as a person reads the settled text.
    Clicking "Release" during a debounced preview raced the dialog on a loaded machine."""
    from playwright.sync_api import expect

    expect(page.locator("#releases")).to_have_attribute("aria-busy", "false", timeout=30_000)


def history_done(panel: Any) -> Any:
    return panel.get_by_role("cell", name=DONE)


def results_table(panel: Any) -> Any:
    header = panel.page.get_by_role("columnheader", name=RESULT_HEADER)
    return panel.get_by_role("table").filter(has=header)
