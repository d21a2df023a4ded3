"""The per-survey submission rate limit and the request-size cap."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from surveys.collection import ratelimit
from surveys.models import Submission
from testsupport import factories
from testsupport.factories import full_answers, new_id

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _post(client, survey, **body):
    body.setdefault("submission_id", new_id())
    body.setdefault("randomizer", "browser")
    body.setdefault("answers", full_answers())
    return client.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")


def test_submissions_past_the_survey_limit_get_429_and_store_nothing(anon, survey, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 3
    assert [_post(anon, survey).status_code for _ in range(3)] == [201, 201, 201]
    refused = _post(anon, survey)
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "rate_limited" and body["retry_after"] >= 1
    assert Submission.objects.filter(survey=survey).count() == 3


def test_the_limit_is_per_survey(anon, survey, alice, settings):
    from surveys import services
    from testsupport.factories import survey_body

    other = factories.survey_create(owner=alice, data=survey_body())
    services.survey_open(survey=other)
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 1
    assert _post(anon, survey).status_code == 201
    assert _post(anon, survey).status_code == 429
    assert _post(anon, other).status_code == 201


def test_the_window_resets(survey, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 1
    ratelimit.submission_rate_check(survey_id=survey.pk, now=600.0)
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.submission_rate_check(survey_id=survey.pk, now=601.0)
    ratelimit.submission_rate_check(survey_id=survey.pk, now=660.0)  # next 60 s window


def test_a_broken_cache_fails_open_and_backs_off(anon, survey, settings, monkeypatch):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 1
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", broken)
    assert _post(anon, survey).status_code == 201
    assert _post(anon, survey).status_code == 201  # over the limit, but the limiter stepped aside
    assert len(calls) == 1  # the second request did not even try the broken cache


def test_no_js_form_is_rate_limited_too(client, alice, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 1
    survey = factories.make_physical_survey(alice, title="No JS")
    ratelimit.submission_rate_check(survey_id=survey.pk)  # use up the window
    # A form that could be stored meets the survey's limit (junk meets its sender's own:
    # tests/surveys/collection/test_ratelimit_junk.py).
    form = {"q-cheated": "yes", "q-region": "North", "q-hours": "34"}
    response = client.post(f"/s/{survey.slug}/submit/", form)
    assert response.status_code == 429
    assert Submission.objects.filter(survey=survey).count() == 0


def test_oversized_bodies_get_413_before_parsing(anon, survey, settings):
    settings.DENIABLE_MAX_REQUEST_BYTES = 2048
    response = anon.post(
        f"/api/v1/surveys/{survey.slug}/responses/",
        data="{" + " " * 4096 + "}",
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json()["error"] == "request_too_large"
    assert Submission.objects.count() == 0


def test_bodies_under_the_cap_pass(anon, survey, settings):
    settings.DENIABLE_MAX_REQUEST_BYTES = 4096
    assert _post(anon, survey).status_code == 201
