"""Attack: a staff account reads, in the admin, which invitee has just answered (a seam of the
admin × invitations × batches). The raw ``used`` flag is set by the submission itself, so its
column and filter named the invitation one submission at a time; the list and the change pages
now show a use only once its batch is published, like the API's counts."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from surveys.models import Invitation
from testsupport import factories
from testsupport.factories import full_answers, survey_body

K = 10
pytestmark = pytest.mark.django_db


def _pages(client: Client, survey_pk: int, pks: list[int]) -> list[str]:
    """The list (every filter the admin offers, none on use) and each change page, as text with
    each invitation's own digest blanked out (what may differ between two rows)."""
    lists = [client.get("/admin/surveys/invitation/", {"survey__id__exact": survey_pk})]
    assert "used__exact" not in lists[0].content.decode()  # no filter on the raw flag
    pages = [_steady(r.content.decode()) for r in lists]
    for pk in pks:
        response = client.get(f"/admin/surveys/invitation/{pk}/change/")
        assert response.status_code == 200
        text = response.content.decode()
        digest = Invitation.objects.get(pk=pk).digest
        pages.append(_steady(re.sub(rf"{digest}|/invitation/{pk}/|\({pk}\)", "<this>", text)))
    return pages


def _steady(html: str) -> str:
    """Without what differs on every response (the CSRF token, a CSP nonce)."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "csrf", html)
    return re.sub(r'nonce="[^"]+"', "nonce", html)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_the_admin_shows_no_use_before_its_batch_is_published():
    staff = get_user_model().objects.create_superuser("staff", "s@example.org", "pw-123456789x")
    survey = factories.make_survey(staff, survey_body(access="invite"))
    tokens = factories.invitations_create(survey=survey, count=K + 4)
    pks = sorted(Invitation.objects.filter(survey=survey).values_list("pk", flat=True))
    client = Client()
    client.force_login(staff)
    before = _pages(client, survey.pk, pks)
    factories.submit(survey, full_answers(), token=tokens[3])  # invitee 3 answers
    after = _pages(client, survey.pk, pks)
    assert before[0] == after[0]  # the list is the same page
    assert len(set(after[1:])) == 1  # every change page reads the same
    assert "not used, or used in a batch not yet published" in after[1]
    for token in tokens[4 : 4 + K - 1]:  # the batch completes
        factories.submit(survey, full_answers(), token=token)
    published = _pages(client, survey.pk, pks)
    assert published[0].count("used (published with its batch)") == K
