"""A database outage answers a clean 503 JSON with Retry-After, never a 500 (issue 6, faults)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_database_errors_in_a_view_answer_503_with_retry_after(error: type[Exception]) -> None:
    with mock.patch(
        "surveys.collection.public_survey_cache.survey_get_public",
        side_effect=error("server closed"),
    ):
        response = Client().post(
            "/api/v1/surveys/some-slug/responses/", data="{}", content_type="application/json"
        )
    assert response.status_code == 503
    assert response.json()["error"] == "unavailable"
    assert int(response["Retry-After"]) > 0
    assert "server closed" not in response.content.decode()  # no internals leak


def test_other_exceptions_are_not_swallowed() -> None:
    client = Client(raise_request_exception=False)
    with mock.patch(
        "surveys.collection.public_survey_cache.survey_get_public", side_effect=RuntimeError("bug")
    ):
        response = client.post(
            "/api/v1/surveys/some-slug/responses/", data="{}", content_type="application/json"
        )
    assert response.status_code == 500
