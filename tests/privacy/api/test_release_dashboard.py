"""Releases API (docs/api.md#releases): the dashboard partial renders without inline script."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_dashboard_partial_renders_without_inline_script(rf, owner, survey):
    from django.template.loader import render_to_string

    request = rf.get("/")
    request.user = owner
    context = {"survey": survey, "is_owner": True}  # only the owner gets the request form
    html = render_to_string("privacy/_releases.html", context, request=request)
    assert f'data-releases-url="/api/v1/surveys/{survey.slug}/releases/"' in html
    assert f'data-budget-url="/api/v1/surveys/{survey.slug}/budget/"' in html
    assert "js/releases.js" in html
    assert "<script>" not in html and "onclick" not in html
    assert 'value="age" checked' in html  # number questions are released by default
    assert '<option value="region">' in html


def test_a_team_member_gets_the_budget_and_history_but_no_request_form(rf, owner, survey):
    from django.template.loader import render_to_string

    request = rf.get("/")
    request.user = owner
    context = {"survey": survey, "is_owner": False}
    html = render_to_string("privacy/_releases.html", context, request=request)
    assert 'data-role="budget-gauge"' in html and 'data-role="history"' in html
    assert 'data-role="release-form"' not in html and 'data-role="confirm-dialog"' not in html
    assert "Only the survey's owner requests releases" in html


def test_an_archived_survey_shows_its_owner_no_request_form(rf, owner, survey):
    from django.template.loader import render_to_string

    from surveys.services import survey_archive, survey_close

    survey_close(survey=survey)
    survey_archive(survey=survey)
    request = rf.get("/")
    request.user = owner
    context = {"survey": survey, "is_owner": True}
    html = render_to_string("privacy/_releases.html", context, request=request)
    assert 'data-role="release-form"' not in html
    assert "unarchive it to request a release" in html
