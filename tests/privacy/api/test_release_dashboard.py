"""Releases API (docs/api.md#releases): the dashboard partial renders without inline script."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_dashboard_partial_renders_without_inline_script(rf, owner, survey):
    from django.template.loader import render_to_string

    request = rf.get("/")
    request.user = owner
    html = render_to_string("privacy/_releases.html", {"survey": survey}, request=request)
    assert f'data-releases-url="/api/v1/surveys/{survey.slug}/releases/"' in html
    assert f'data-budget-url="/api/v1/surveys/{survey.slug}/budget/"' in html
    assert "js/releases.js" in html
    assert "<script>" not in html and "onclick" not in html
    assert 'value="age" checked' in html  # number questions are released by default
    assert '<option value="region">' in html
