"""The researcher's invitations page in Chromium: counts, create N links, download them as CSV
(the only time they exist), a link being used, and revoking the unused ones after confirming."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from deniable.errors import Conflict
from surveys.models import Invitation
from surveys.services import invitation_digest, survey_open
from testsupport.factories import new_id, submission_create, survey_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [{"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"}]


def _counts(page: Any) -> dict[str, int]:
    return {
        name: int(page.locator(f"#count-{name}").inner_text())
        for name in ("issued", "used", "revoked", "remaining")
    }


def _log_in(page: Any, base: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", "inviter")
    page.fill("#id_password", "pw-inviter-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"**{next_path}")


@pytest.mark.parametrize("width", [360, 1280])
def test_create_download_use_and_revoke(live_server, new_page, tmp_path: Path, width: int):
    user = get_user_model().objects.create_user("inviter", password="pw-inviter-123")
    survey = survey_create(
        owner=user, data={"title": "Invited", "access": "invite", "questions": QUESTIONS}
    )
    survey_open(survey=survey)
    page, problems = new_page(viewport={"width": width, "height": 800}, accept_downloads=True)
    detail = f"/surveys/{survey.slug}/sharing/"
    _log_in(page, live_server.url, detail)

    # From the survey page to its invitations page.
    page.get_by_role("link", name="Invitations: issued, used and remaining").click()
    page.wait_for_url(f"**/surveys/{survey.slug}/invitations/")
    assert _counts(page) == {"issued": 0, "used": 0, "revoked": 0, "remaining": 0}
    assert page.locator("#revoke-button").count() == 0  # nothing to revoke yet

    # A bad count is refused at the field, nothing is created.
    page.fill("#invite-count", "0")
    page.get_by_role("button", name="Create links").click()
    page.locator("#invite-count-error").wait_for()
    assert "A whole number from 1 to 10000" in page.locator("#invite-count-error").inner_text()
    assert page.locator("#invite-count").get_attribute("aria-invalid") == "true"
    assert Invitation.objects.count() == 0
    # Chromium logs the 400 status of that page itself; nothing else may be logged.
    assert [m for m in problems.messages if "status of 400" not in m] == []
    problems.messages.clear()

    page.fill("#invite-count", "3")
    page.get_by_role("button", name="Create links").click()
    page.locator("#new-links").wait_for()
    shown = [a.get_attribute("href") for a in page.locator("#new-links a").all()]
    assert len(shown) == 3
    assert all(link.startswith(f"{live_server.url}/s/{survey.slug}/#t=") for link in shown)
    assert _counts(page) == {"issued": 3, "used": 0, "revoked": 0, "remaining": 3}
    page.screenshot(path=f"/tmp/deniable-invitations-created-{width}.png", full_page=True)

    # The download carries exactly the links shown, one per line under a "link" header, each
    # "'" + the link like every CSV cell (deniable.csv_cells), under the survey's name.
    with page.expect_download() as info:
        page.locator("#download-links").click()
    download = info.value
    assert download.suggested_filename == f"{survey.slug}-invitations.csv"
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    lines = target.read_bytes().decode("utf-8").split("\r\n")
    assert lines == ["link", *("'" + link for link in shown), ""]
    tokens = [link.split("#t=", 1)[1] for link in shown]
    stored = set(Invitation.objects.values_list("digest", flat=True))
    assert {invitation_digest(t) for t in tokens} == stored

    # One link is used by a respondent; the counts say so after a reload.
    submission_create(
        survey=survey,
        submission_id=new_id(),
        randomizer="browser",
        answers={"cheated": True},
        token=tokens[0],
    )
    page.goto(f"{live_server.url}/surveys/{survey.slug}/invitations/")
    assert _counts(page) == {"issued": 3, "used": 1, "revoked": 0, "remaining": 3 - 1}
    assert page.locator("#new-links").count() == 0  # the links are never shown again
    assert "#t=" not in page.content()

    # Revoking asks for confirmation first: without the box ticked the browser will not send it.
    page.locator("#revoke-button").click()
    assert page.evaluate("document.querySelector('#revoke-confirm').validity.valueMissing")
    assert _counts(page)["revoked"] == 0 and Invitation.objects.filter(revoked=True).count() == 0
    page.locator("#revoke-confirm").check()
    page.locator("#revoke-button").click()
    page.get_by_text("Revoked 2 unused invitation links").wait_for()
    assert _counts(page) == {"issued": 3, "used": 1, "revoked": 2, "remaining": 0}
    assert page.locator("#revoke-button").count() == 0

    # A revoked link no longer works.
    with pytest.raises(Conflict) as refused:
        submission_create(
            survey=survey,
            submission_id=new_id(),
            randomizer="browser",
            answers={"cheated": False},
            token=tokens[1],
        )
    assert refused.value.code == "token_revoked"

    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    page.screenshot(path=f"/tmp/deniable-invitations-{width}.png", full_page=True)
    assert problems.messages == []
