"""Embedded mode (no broker, no beat): surveys past ``closes_at`` were closed only from the
researcher's HTML pages, never from the API (found by an adversarial review, stop 44), so a
researcher using the API alone saw the survey "open", and its shuffled file refused (409
``survey_open``), for good. The API's survey list, detail, estimates and export views now run the
sweep too, as the release views run theirs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from surveys.models import Survey
from testsupport.factories import api_client, make_survey, make_user


@pytest.mark.django_db
def test_an_api_only_researcher_in_embedded_mode_sees_a_survey_past_its_closing_time_closed():
    cache.delete("surveys:embedded-sweep")
    owner = make_user("owner")
    survey = make_survey(owner)
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() - timedelta(minutes=5))
    client = api_client(owner)
    for _ in range(2):  # the first call of a minute would be the sweep's turn
        body = client.get(f"/api/v1/surveys/{survey.slug}/").json()
        shuffled = client.get(
            f"/api/v1/surveys/{survey.slug}/responses/export/shuffled/?format=json"
        )
    assert body["status"] == "closed", (
        f"five minutes past closes_at, the API still says {body['status']!r} and the shuffled "
        f"file answers {shuffled.status_code}"
    )
