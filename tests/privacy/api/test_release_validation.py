"""Releases API (docs/api.md#releases): bad input is a 400 naming the field and charges nothing;
someone else's survey is a 404, anonymous callers are refused."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from privacy.models import LedgerEntry, Release
from tests.privacy.api.support import post_raw, url
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


BAD_BODIES = [
    ({"mechanism": "laplace", "epsilon": 0}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": -1}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "NaN"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "Infinity"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "abc"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": True}, "epsilon"),
    ({"mechanism": "laplace"}, "epsilon"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 0}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 1}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 1.5}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5}, "delta"),
    ({"mechanism": "gaussian", "rho": 0}, "rho"),
    ({"mechanism": "gaussian", "rho": -0.1}, "rho"),
    ({"mechanism": "gaussian", "rho": 0.1, "epsilon": 0.5, "delta": 1e-6}, "rho"),
    ({"mechanism": "gaussian"}, "rho"),
    ({"mechanism": "geometric", "epsilon": 0.5}, "mechanism"),
    ({"epsilon": 0.5}, "mechanism"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": ["nope"]}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": "cheated"}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": ["age", "age"]}, "questions"),
    (
        {"mechanism": "laplace", "epsilon": 0.5, "questions": ["region"], "group_by": "region"},
        "questions",
    ),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": []}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "nope"}, "group_by"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "cheated"}, "group_by"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "age"}, "group_by"),
]


@pytest.mark.parametrize(("body", "field"), BAD_BODIES)
def test_bad_input_is_400_naming_the_field_and_charges_nothing(client, survey, body, field):
    for path in (url(survey), url(survey, "preview/")):
        response = client.post(path, body, format="json")
        assert response.status_code == 400, response.content
        assert field in response.json()["errors"]
    assert Release.objects.count() == 0
    assert LedgerEntry.objects.count() == 0


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_literals_are_400_naming_the_field(client, survey, literal):
    response = post_raw(client, url(survey), '{"mechanism": "laplace", "epsilon": ' + literal + "}")
    assert response.status_code == 400
    assert "epsilon" in response.json()["errors"]
    response = post_raw(
        client, url(survey), '{"mechanism": "gaussian", "epsilon": 1, "delta": ' + literal + "}"
    )
    assert response.status_code == 400
    assert "delta" in response.json()["errors"]
    assert LedgerEntry.objects.count() == 0


def test_malformed_json_and_non_object_body_are_400(client, survey):
    assert post_raw(client, url(survey), "{nope").status_code == 400
    assert post_raw(client, url(survey), "[1, 2]").status_code == 400
    assert LedgerEntry.objects.count() == 0


def test_someone_elses_survey_is_404_and_charges_nothing(survey):
    other = APIClient()
    other.force_authenticate(make_user("mallory"))
    body = {"mechanism": "laplace", "epsilon": 0.5}
    assert other.post(url(survey), body, format="json").status_code == 404
    assert other.post(url(survey, "preview/"), body, format="json").status_code == 404
    assert other.get(url(survey)).status_code == 404
    assert other.get(f"/api/v1/surveys/{survey.slug}/budget/").status_code == 404
    assert LedgerEntry.objects.count() == 0


def test_anonymous_is_refused(survey):
    response = APIClient().post(
        url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json"
    )
    assert response.status_code in (401, 403)
    assert LedgerEntry.objects.count() == 0
