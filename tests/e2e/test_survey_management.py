"""Survey management and teams in Chromium (docs/researcher-guide.md#managing-surveys):
duplicate, delete with a typed confirmation, the respondent preview storing nothing, sharing with
a viewer who then sees the dashboard but no release form, and sorting the survey list."""

from __future__ import annotations

from typing import Any

import pytest

from privacy.models import Release
from surveys.models import Collaborator, Question, Submission, Survey, Tally
from surveys.services import survey_close, survey_open
from tests.e2e.respondent_support import flip
from testsupport.factories import ensure_user, make_release, submit_many, survey_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {"key": "region", "text": "Where do you live?", "kind": "category", "options": ["N", "S"]},
]
PASSWORD = "pw-manage-123"


def _survey(owner: Any, title: str, *, status: str = "open", respondents: int = 0) -> Survey:
    survey = survey_create(owner=owner, data={"title": title, "questions": QUESTIONS})
    if status != "draft":
        survey_open(survey=survey)
        submit_many(survey, respondents, lambda i: {"cheated": i % 2 == 0, "region": "N"})
    if status == "closed":
        survey_close(survey=survey)
    return survey


def _log_in(page: Any, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{next_path}")


def test_duplicate_from_the_survey_page(live_server, new_page):
    owner = ensure_user("owner1", PASSWORD)
    survey = _survey(owner, "Exam habits", status="closed", respondents=10)
    page, problems = new_page()
    _log_in(page, live_server.url, "owner1", f"/surveys/{survey.slug}/")
    page.locator("#duplicate-button").click()
    page.wait_for_url(lambda url: survey.slug not in url and "/surveys/" in url)
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert copy.title == "Exam habits (copy)" and copy.status == "draft"
    assert page.url.endswith(f"/surveys/{copy.slug}/")
    assert "Exam habits (copy)" in page.locator("h1").inner_text()
    assert "no responses, invitations or releases" in page.locator("main").inner_text()
    assert Question.objects.filter(survey=copy).count() == 2
    assert not Submission.objects.filter(survey=copy).exists()
    assert problems.messages == []


def test_delete_needs_the_slug_typed_and_says_reports_go(live_server, new_page):
    owner = ensure_user("owner2", PASSWORD)
    survey = _survey(owner, "To be deleted", status="closed", respondents=12)
    make_release(survey, owner, {"mechanism": "laplace", "epsilon": 0.2})
    page, problems = new_page()
    _log_in(page, live_server.url, "owner2", f"/surveys/{survey.slug}/")
    page.locator("#delete-link").click()
    page.wait_for_url(f"**/surveys/{survey.slug}/delete/")
    said = page.locator("main").inner_text()
    assert "irreversible" in said and "every report respondents sent" in said
    # A wrong slug deletes nothing and says why at the field.
    page.screenshot(path="/tmp/deniable-manage-delete.png", full_page=True)
    page.fill("#delete-confirm", "not-the-slug")
    page.locator("#delete-button").click()
    page.locator("#delete-error").wait_for()
    assert survey.slug in page.locator("#delete-error").inner_text()
    assert page.locator("#delete-confirm").get_attribute("aria-invalid") == "true"
    assert Survey.objects.filter(pk=survey.pk).exists()
    problems.messages.clear()  # Chromium logs the 400 of that page itself
    page.fill("#delete-confirm", survey.slug)
    page.locator("#delete-button").click()
    page.wait_for_url(f"{live_server.url}/surveys/")
    assert "and all its reports were deleted" in page.locator("main").inner_text()
    assert not Survey.objects.filter(pk=survey.pk).exists()
    assert not Submission.objects.filter(survey_id=survey.pk).exists()
    assert not Tally.objects.filter(survey_id=survey.pk).exists()
    assert not Release.objects.filter(survey_id=survey.pk).exists()
    assert problems.messages == []


def test_preview_of_a_draft_stores_nothing(live_server, new_page):
    owner = ensure_user("owner3", PASSWORD)
    draft = _survey(owner, "Draft to preview", status="draft")
    page, problems = new_page()
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    _log_in(page, live_server.url, "owner3", f"/surveys/{draft.slug}/")
    page.locator("#preview-link").click()
    page.wait_for_url(f"**/surveys/{draft.slug}/preview/")
    page.wait_for_load_state("networkidle")
    requests.clear()  # from here on: the preview page only
    assert "Preview — nothing is stored" in page.locator("#preview-banner").inner_text()
    flip(page, "cheated", "true", skip=True, advance=True)
    page.locator("#step-region label", has_text="S").first.click()
    page.locator("#step-region [data-role=next]").click()
    page.locator("#step-summary").wait_for()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    assert "nothing was sent" in page.locator("#thanks").inner_text()
    assert [r.url for r in requests if r.method != "GET"] == []
    keys = page.evaluate("() => Object.keys(window.localStorage)")
    assert [k for k in keys if draft.slug in k] == []
    assert not Submission.objects.exists() and not Tally.objects.exists()
    draft.refresh_from_db()
    assert draft.status == "draft"
    assert problems.messages == []


def test_share_with_a_viewer_who_sees_the_dashboard_but_no_release_form(live_server, new_page):
    owner = ensure_user("owner4", PASSWORD)
    ensure_user("viewer4", PASSWORD)
    survey = _survey(owner, "Shared survey", status="closed", respondents=10)
    page, problems = new_page()
    _log_in(page, live_server.url, "owner4", f"/surveys/{survey.slug}/sharing/")
    page.fill("#share-username", "viewer4")
    page.select_option("#share-role", "viewer")
    page.locator("#share-button").click()
    page.locator("#team-list").wait_for()
    assert "viewer4" in page.locator("#team-list").inner_text()
    assert Collaborator.objects.get(survey=survey).role == "viewer"
    page.screenshot(path="/tmp/deniable-manage-owner-detail.png", full_page=True)
    page.locator(".section-nav a[data-section=releases]").click()
    page.wait_for_url(f"**/surveys/{survey.slug}/releases/")
    assert page.locator("[data-role=release-form]").count() == 1  # the owner's

    other, other_problems = new_page()
    _log_in(other, live_server.url, "viewer4", "/surveys/")
    row = other.locator(f'tr[data-slug="{survey.slug}"]')
    assert "Viewer (shared by owner4)" in row.inner_text()
    row.get_by_role("link", name="Shared survey").click()
    other.wait_for_url(f"**/surveys/{survey.slug}/")
    assert "your role: viewer" in other.locator("#your-role").inner_text()
    for control in ("#duplicate-button", "#delete-link", "#archive-button"):
        assert other.locator(control).count() == 0, control
    other.locator(".section-nav a[data-section=results]").click()
    other.locator("#estimates-title").wait_for()
    other.locator(".section-nav a[data-section=releases]").click()
    other.wait_for_url(f"**/surveys/{survey.slug}/releases/")
    panel = other.locator("#releases")
    other.wait_for_function(
        "() => document.querySelector('[data-role=budget-text]').textContent.includes('remaining')"
    )
    assert other.locator("[data-role=release-form]").count() == 0
    assert "Only the survey's owner requests releases" in panel.inner_text()
    other.screenshot(path="/tmp/deniable-manage-viewer-detail.png", full_page=True)
    other.locator(".section-nav a[data-section=sharing]").click()
    other.wait_for_url(f"**/surveys/{survey.slug}/sharing/")
    assert other.locator("#share-form").count() == 0
    assert problems.messages == [] and other_problems.messages == []


def test_the_survey_list_sorts_by_column_links(live_server, new_page):
    owner = ensure_user("owner5", PASSWORD)
    _survey(owner, "Bravo", respondents=0)
    _survey(owner, "alpha", status="draft")
    _survey(owner, "Charlie", respondents=20)
    page, problems = new_page()
    _log_in(page, live_server.url, "owner5", "/surveys/")

    def titles() -> list[str]:
        return [
            t.strip()
            for t in page.locator("#survey-list tbody tr td:first-child").all_inner_texts()
        ]

    assert titles() == ["Charlie", "alpha", "Bravo"]  # newest first
    page.locator("a.sort-link[data-sort=title]").click()
    page.wait_for_url("**ordering=title")
    assert titles() == ["alpha", "Bravo", "Charlie"]
    assert page.locator("th[aria-sort=ascending]").inner_text().startswith("Title")
    page.locator("a.sort-link[data-sort=title]").click()
    page.wait_for_url("**ordering=-title")
    assert titles() == ["Charlie", "Bravo", "alpha"]
    page.locator("a.sort-link[data-sort=responses]").click()
    page.wait_for_url("**ordering=-responses")
    assert titles()[0] == "Charlie"
    page.screenshot(path="/tmp/deniable-manage-list.png", full_page=True)
    assert problems.messages == []
