"""Server-rendered pages: home, login, the researcher list, detail and builder pages,
permissions and the open/close buttons."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.surveys.pages.support import (
    ALL_KINDS,
    assert_csp_clean,
    make_survey,
    physical_post,
)

pytestmark = pytest.mark.django_db


def test_home_landing_and_redirect(client, alice):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Researcher login" in response.content
    client.force_login(alice)
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-home")


def test_login_page_and_login(client, alice):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "pw-alice-123"})
    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-home")
    response = client.post(reverse("logout"))
    assert response.status_code == 302


@pytest.mark.parametrize("name", ["researcher-home", "survey-new"])
def test_researcher_pages_require_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_researcher_survey_pages_require_login(client, survey):
    for name in (
        "survey-detail",
        "survey-results",
        "survey-analysis",
        "survey-sharing",
        "survey-edit",
    ):
        response = client.get(reverse(name, args=[survey.slug]))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_survey_list_and_detail_render(client, alice, survey):
    client.post(reverse("respond-submit", args=[survey.slug]), physical_post(survey))
    client.force_login(alice)
    listing = client.get(reverse("researcher-home"))
    assert listing.status_code == 200
    assert b"Campus life" in listing.content
    detail = client.get(reverse("survey-detail", args=[survey.slug]))
    assert detail.status_code == 200
    html = detail.content.decode()
    assert 'id="respondent-count">1<' in html
    assert_csp_clean(html)
    html = client.get(reverse("survey-results", args=[survey.slug])).content.decode()
    assert "<svg" in html and 'class="ci"' in html
    assert f"/api/v1/surveys/{survey.slug}/estimates/?format=csv" in html
    assert f"/api/v1/surveys/{survey.slug}/responses/export/?format=csv" in html
    assert_csp_clean(html)
    grouped = client.get(reverse("survey-results", args=[survey.slug]), {"group_by": "region"})
    assert grouped.status_code == 200
    # One cross-tab with a column per group (was: one "region = North" table per group).
    assert 'North<br><span class="small muted">n = 1</span>' in grouped.content.decode()


def test_builder_renders_for_new_and_draft(client, alice):
    client.force_login(alice)
    response = client.get(reverse("survey-new"))
    assert response.status_code == 200
    assert_csp_clean(response.content.decode())
    draft = make_survey(alice, open_=False)
    response = client.get(reverse("survey-edit", args=[draft.slug]))
    assert response.status_code == 200
    assert b"builder-data" in response.content
    opened = make_survey(alice)
    response = client.get(reverse("survey-edit", args=[opened.slug]))
    assert response.status_code == 302


def test_other_researcher_gets_404(client, bob, survey):
    client.force_login(bob)
    assert client.get(reverse("survey-detail", args=[survey.slug])).status_code == 404
    assert client.get(reverse("survey-edit", args=[survey.slug])).status_code == 404
    assert client.post(reverse("survey-close", args=[survey.slug])).status_code == 404
    assert (
        client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 2}).status_code
        == 404
    )
    survey.refresh_from_db()
    assert survey.status == "open"
    assert b"Campus life" not in client.get(reverse("researcher-home")).content


def test_open_and_close_buttons(client, alice):
    draft = make_survey(alice, open_=False)
    client.force_login(alice)
    assert client.get(reverse("survey-open", args=[draft.slug])).status_code == 405
    client.post(reverse("survey-open", args=[draft.slug]))
    draft.refresh_from_db()
    assert draft.status == "open"
    client.post(reverse("survey-close", args=[draft.slug]))
    draft.refresh_from_db()
    assert draft.status == "closed"
    # Closing again is a conflict: shown as a message, not an error page.
    response = client.post(reverse("survey-close", args=[draft.slug]), follow=True)
    assert response.status_code == 200
    assert b"Cannot close" in response.content


def test_invitations_are_shown_once(client, alice):
    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    client.force_login(alice)
    response = client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 3})
    assert response.status_code == 200
    assert (
        response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    )
    html = response.content.decode()
    assert html.count('href="http://testserver/s/') == 3
    assert html.count("#t=") == 6  # each link's href and its visible text
    assert survey.invitations.count() == 3
    bad = client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 0})
    # A bad count re-renders the page with the error at the field (it used to redirect).
    assert bad.status_code == 400
    assert "A whole number from 1 to 10000." in bad.content.decode()
    assert 'aria-invalid="true"' in bad.content.decode()
    assert survey.invitations.count() == 3
