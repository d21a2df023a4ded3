"""Release times are coarse (issue 11, item 10): to the hour in the API, never to the second."""

from __future__ import annotations

import datetime

import pytest
from rest_framework.test import APIClient

from privacy import services
from privacy.models import Release
from testsupport import factories
from testsupport.factories import make_release_survey as make_survey
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


def test_started_and_finished_at_are_truncated_to_the_hour() -> None:
    owner = make_user("owner")
    survey = make_survey(owner, epsilon=2.0, respondents=10)
    release, _ = factories.release_request(
        survey=survey, user=owner, data={"mechanism": "laplace", "epsilon": 0.5}
    )
    services.release_run(release_id=release.pk)
    stored = Release.objects.get(pk=release.pk)
    client = APIClient()
    client.force_authenticate(owner)
    bodies = [
        client.get(f"/api/v1/releases/{release.pk}/").json(),
        client.get(f"/api/v1/surveys/{survey.slug}/releases/").json()[0],
        client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()["releases"][0],
    ]
    for body in bodies:
        for name, exact in (("started_at", stored.started_at), ("finished_at", stored.finished_at)):
            shown = datetime.datetime.fromisoformat(body[name].replace("Z", "+00:00"))
            assert (shown.minute, shown.second, shown.microsecond) == (0, 0, 0), body[name]
            assert shown <= exact < shown + datetime.timedelta(hours=1)
