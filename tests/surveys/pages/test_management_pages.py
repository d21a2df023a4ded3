"""Server-rendered survey management pages (docs/researcher-guide.md#managing-surveys): the
preview (no row written), delete with a typed confirmation, slug, archive, the team form, the
buttons each role sees and the survey list's sort links and archived filter."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from surveys import services
from surveys.models import Collaborator, Invitation, Submission, Survey, Tally
from tests.surveys.pages.support import assert_csp_clean, make_survey, physical_post
from testsupport import factories

pytestmark = pytest.mark.django_db


def _data(html: str) -> dict:
    start = html.index('id="survey-data"')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def _counts() -> tuple[int, int, int]:
    return Submission.objects.count(), Tally.objects.count(), Invitation.objects.count()


@pytest.mark.parametrize("open_", [False, True])
def test_preview_renders_the_respondent_page_and_stores_nothing(client, alice, open_):
    survey = make_survey(alice, open_=open_, access="invite")
    client.force_login(alice)
    before = _counts()
    response = client.get(reverse("survey-preview", args=[survey.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Preview — nothing is stored." in html
    assert 'id="respond-form"' in html and 'id="step-cheated"' in html
    assert f'action="{reverse("survey-preview", args=[survey.slug])}"' in html
    data = _data(html)
    assert data["preview"] is True and data["api_url"] is None
    assert data["invitation_check_url"] is None
    assert_csp_clean(html)
    # The no-JS form posts back to the preview: checked, then discarded (no token needed).
    posted = client.post(reverse("survey-preview", args=[survey.slug]), physical_post(survey))
    assert posted.status_code == 200
    assert "Preview finished — nothing was stored" in posted.content.decode()
    bad = client.post(reverse("survey-preview", args=[survey.slug]), {"q-age": "7"})
    assert bad.status_code == 400 and "Preview — nothing is stored." in bad.content.decode()
    assert _counts() == before
    survey.refresh_from_db()
    assert survey.status == ("open" if open_ else "draft")


def test_the_real_respondent_page_has_no_preview_banner(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Preview" not in html
    assert _data(html)["preview"] is False


def test_delete_page_says_what_goes_and_needs_the_slug(client, alice, survey):
    client.force_login(alice)
    url = reverse("survey-delete", args=[survey.slug])
    page = client.get(url).content.decode()
    assert "irreversible" in page and "every report respondents sent" in page
    assert "close it before deleting it" in page  # still open
    refused = client.post(url, {"confirm": survey.slug})
    assert refused.status_code == 409 and Survey.objects.filter(pk=survey.pk).exists()
    services.survey_close(survey=survey)
    wrong = client.post(url, {"confirm": "nope"})
    assert wrong.status_code == 400
    assert f"Type the survey&#x27;s slug, {survey.slug}" in wrong.content.decode()
    assert Survey.objects.filter(pk=survey.pk).exists()
    done = client.post(url, {"confirm": survey.slug})
    assert done.status_code == 302 and done["Location"] == reverse("researcher-home")
    assert not Survey.objects.filter(pk=survey.pk).exists()


def test_slug_form_changes_a_draft_and_refuses_once_open(client, alice):
    draft = make_survey(alice, open_=False)
    client.force_login(alice)
    response = client.post(reverse("survey-slug", args=[draft.slug]), {"slug": "my-campus"})
    assert response.status_code == 302 and response["Location"].endswith("/surveys/my-campus/")
    bad = client.post(reverse("survey-slug", args=["my-campus"]), {"slug": "Bad Slug"}, follow=True)
    assert "Slug not changed" in bad.content.decode()
    services.survey_open(survey=Survey.objects.get(slug="my-campus"))
    late = client.post(reverse("survey-slug", args=["my-campus"]), {"slug": "later"}, follow=True)
    assert "fixed once the survey is open" in late.content.decode()
    assert Survey.objects.filter(slug="my-campus").exists()


def test_archive_and_unarchive_buttons(client, alice, survey):
    client.force_login(alice)
    detail = client.get(reverse("survey-detail", args=[survey.slug])).content.decode()
    assert 'id="archive-button"' not in detail  # open: close first
    assert "close it first" in detail
    services.survey_close(survey=survey)
    detail = client.get(reverse("survey-detail", args=[survey.slug])).content.decode()
    assert 'id="archive-button"' in detail
    client.post(reverse("survey-archive", args=[survey.slug]))
    survey.refresh_from_db()
    assert survey.status == "archived"
    listing = client.get(reverse("researcher-home")).content.decode()
    assert survey.slug not in listing and 'id="show-archived"' in listing
    archived = client.get(reverse("researcher-home"), {"archived": "true"}).content.decode()
    assert survey.slug in archived
    client.post(reverse("survey-unarchive", args=[survey.slug]))
    survey.refresh_from_db()
    assert survey.status == "closed"


def test_share_form_adds_changes_and_removes(client, alice, bob, survey):
    client.force_login(alice)
    url = reverse("survey-share", args=[survey.slug])
    page = client.post(url, {"username": "nobody", "role": "viewer"}, follow=True)
    assert "Not shared: No researcher is called &#x27;nobody&#x27;." in page.content.decode()
    client.post(url, {"username": "bob", "role": "viewer"})
    client.post(url, {"username": "bob", "role": "editor"})
    assert Collaborator.objects.get(survey=survey, user=bob).role == "editor"
    detail = client.get(reverse("survey-sharing", args=[survey.slug])).content.decode()
    assert 'data-username="bob"' in detail
    client.post(reverse("survey-unshare", args=[survey.slug]), {"username": "bob"})
    assert not Collaborator.objects.filter(survey=survey).exists()


@pytest.mark.parametrize(
    ("role", "shown", "hidden"),
    [
        (
            "viewer",
            ["#preview-link", "your role: viewer"],
            ["duplicate-button", "delete-link", "share-form", "release-form", "Close the survey"],
        ),
        (
            "editor",
            ["duplicate-button", "Close the survey"],
            ["delete-link", "share-form", "release-form"],
        ),
    ],
)
def test_each_role_sees_its_buttons(client, alice, bob, survey, role, shown, hidden):
    Collaborator.objects.create(survey=survey, user=bob, role=role)
    client.force_login(bob)
    # The buttons of each section (issue 22.10: one page per section).
    html = "".join(
        client.get(reverse(name, args=[survey.slug])).content.decode()
        for name in ("survey-detail", "survey-sharing", "survey-releases")
    )
    for text in shown:
        assert text.lstrip("#") in html, text
    for text in hidden:
        assert text not in html, text
    assert "Only the survey's owner requests releases" in html
    listing = client.get(reverse("researcher-home")).content.decode()
    assert f"{role.capitalize()} (shared by alice)" in listing


def test_a_viewer_gets_a_403_page_for_an_editors_action(client, alice, bob, survey):
    Collaborator.objects.create(survey=survey, user=bob, role="viewer")
    client.force_login(bob)
    assert client.post(reverse("survey-close", args=[survey.slug])).status_code == 403
    assert client.get(reverse("survey-delete", args=[survey.slug])).status_code == 403
    survey.refresh_from_db()
    assert survey.status == "open"
    stranger = factories.make_user("carol")
    client.force_login(stranger)
    assert client.post(reverse("survey-close", args=[survey.slug])).status_code == 404


def test_list_sort_links_work_without_javascript(client, alice):
    make_survey(alice)
    client.force_login(alice)
    html = client.get(reverse("researcher-home"), {"ordering": "title"}).content.decode()
    assert 'aria-sort="ascending"' in html
    assert 'href="?ordering=-title"' in html  # the current column reverses
    assert 'href="?ordering=-responses"' in html  # numbers start high
    assert "Budget left (ε)" in html
    odd = client.get(reverse("researcher-home"), {"ordering": "nonsense"})
    assert odd.status_code == 200  # a hand-edited link falls back to newest first
