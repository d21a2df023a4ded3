"""API v1 (docs/api.md): the researcher endpoints need authentication (the token endpoint:
tests/accounts/test_api_tokens.py)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.surveys.api.support import API, url

pytestmark = pytest.mark.django_db


def test_researcher_endpoints_need_auth(survey):
    anon = APIClient()
    for method, path in [
        ("get", f"{API}/surveys/"),
        ("post", f"{API}/surveys/"),
        ("get", url(survey)),
        ("get", url(survey, "estimates/")),
        ("get", url(survey, "responses/export/")),
        ("get", url(survey, "responses/export/metadata/")),
        ("get", url(survey, "invitations/")),
        ("post", url(survey, "invitations/")),
        ("post", url(survey, "invitations/revoke/")),
        ("post", f"{API}/designs/preview/"),
    ]:
        r = getattr(anon, method)(path, {}, format="json") if method == "post" else anon.get(path)
        assert r.status_code in (401, 403), (path, r.status_code)
