"""The staff admin cannot delete or change releases, results or ledger entries (issue 11, item
10): deleting a done release destroyed a published result, deleting a ledger entry refunded its
charge. Driven through the real admin with a superuser's client."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from privacy import services
from privacy.models import LedgerEntry, Release
from surveys.models import Survey
from testsupport import factories
from testsupport.factories import make_release_survey as make_survey
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def done_release():
    owner = make_user("owner")
    survey = make_survey(owner, epsilon=2.0, respondents=10)
    release, _ = factories.release_request(
        survey=survey, user=owner, data={"mechanism": "laplace", "epsilon": 0.5}
    )
    services.release_run(release_id=release.pk)  # on_commit does not fire inside a test's atomic
    release.refresh_from_db()
    assert release.status == Release.Status.DONE
    return release


@pytest.fixture
def admin_client(django_user_model) -> Client:
    admin = django_user_model.objects.create_superuser("root", password="root-password-123")
    client = Client()
    client.force_login(admin)
    return client


def test_admin_cannot_delete_a_done_release(admin_client: Client, done_release) -> None:
    url = reverse("admin:privacy_release_delete", args=[done_release.pk])
    assert admin_client.get(url).status_code == 403
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:privacy_release_changelist")
    response = admin_client.post(
        changelist,
        {"action": "delete_selected", "_selected_action": [done_release.pk], "post": "yes"},
    )
    assert response.status_code in (200, 302)
    assert Release.objects.filter(pk=done_release.pk, status="done").exists()


def test_admin_cannot_delete_or_change_a_ledger_entry(admin_client: Client, done_release) -> None:
    entry = LedgerEntry.objects.get(release=done_release)
    url = reverse("admin:privacy_ledgerentry_delete", args=[entry.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:privacy_ledgerentry_changelist")
    admin_client.post(
        changelist, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"}
    )
    change = reverse("admin:privacy_ledgerentry_change", args=[entry.pk])
    admin_client.post(change, {"refunded": "on"})
    entry.refresh_from_db()
    assert not entry.refunded


def test_admin_cannot_delete_a_survey_that_has_releases(admin_client: Client, done_release) -> None:
    survey = done_release.survey
    url = reverse("admin:surveys_survey_delete", args=[survey.pk])
    response = admin_client.post(url, {"post": "yes"})
    # Django refuses: the cascade would delete releases the user may not delete.
    assert response.status_code == 403
    page = admin_client.get(url).content.decode()
    assert "release" in page.lower() and "ledger entr" in page.lower()
    assert Survey.objects.filter(pk=survey.pk).exists()
    assert Release.objects.filter(pk=done_release.pk).exists()
