"""API v1 (docs/api.md): another researcher's survey is a 404 everywhere."""

from __future__ import annotations

import pytest

from surveys import services
from surveys.models import Invitation
from tests.surveys.api.support import API, url
from testsupport import factories
from testsupport.factories import submit, survey_body

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"title": "mine now"}),
        ("post", "open/", None),
        ("post", "close/", None),
        ("post", "invitations/", {"count": 1}),
        ("get", "estimates/", None),
        ("get", "estimates/?format=csv", None),
        ("get", "estimates/?group_by=age", None),
        ("get", "responses/export/?format=csv", None),
        ("get", "responses/export/?format=json", None),
        ("get", "responses/export/metadata/", None),
        ("get", "invitations/", None),
        ("post", "invitations/", {"count": 1, "format": "csv"}),
        ("post", "invitations/revoke/", {}),
    ],
)
@pytest.mark.parametrize("state", ["draft", "open"])
def test_other_researchers_get_404(bob_api, alice, method, suffix, body, state):
    survey = factories.survey_create(owner=alice, data=survey_body(access="invite"))
    if state == "open":
        services.survey_open(survey=survey)
        submit(survey, token=factories.invitations_create(survey=survey, count=1)[0])
    before = (survey.title, sorted(Invitation.objects.values_list("used", "revoked")))
    call = getattr(bob_api, method)
    r = (
        call(url(survey, suffix), body, format="json")
        if body is not None
        else call(url(survey, suffix))
    )
    assert r.status_code == 404, (suffix, r.status_code)
    assert r.json() == {"error": "not_found", "detail": "No such survey."}
    survey.refresh_from_db()
    after = (survey.title, sorted(Invitation.objects.values_list("used", "revoked")))
    assert survey.status == state and after == before
    assert bob_api.get(f"{API}/surveys/").json() == []
