"""Hostile query strings and forms on the analysis and sharing surfaces (an adversarial pass):
a NUL in a question key was a 500 (PostgreSQL refuses NUL in any text comparison), and a
repeated key was read as its last value, silently dropping the others."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.models import Collaborator

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "field", "says"),
    [
        # a NUL in a key: PostgreSQL refused the comparison (a 500)
        ("correlation/?x=%00&y=coin", "x", "No question"),
        ("correlation/?x=coin&y=a%00b", "y", "No question"),
        ("estimates/?joint=%00", "joint", ""),
        # a repeated key: the last value was read, the others dropped without a word
        ("regression/?outcome=coin&predictors=age&predictors=region", "predictors", "more than"),
        ("regression/?outcome=coin&outcome=mirror", "outcome", "more than once"),
        ("correlation/?x=coin&x=mirror&y=age", "x", "more than once"),
    ],
)
def test_a_hostile_query_is_a_400_naming_the_field(api, survey, query, field, says):
    response = api.get(f"/api/v1/surveys/{survey.slug}/{query}")
    assert response.status_code == 400, response.content[:200]
    assert says in response.json()["errors"][field][0]


def test_a_nul_key_on_the_analysis_page_is_no_500(client, alice, survey):
    client.force_login(alice)
    for query in ("?cor_x=%00&cor_y=coin", "?joint=%00"):
        response = client.get(f"/surveys/{survey.slug}/analysis/{query}")
        assert response.status_code in (200, 400), (query, response.status_code)


def test_the_sharing_forms_refuse_a_repeated_role_and_a_nul_username(client, alice, bob, survey):
    client.force_login(alice)
    share = reverse("survey-share", args=[survey.slug])
    response = client.post(share, {"username": bob.username, "role": ["editor", "viewer"]})
    assert response.status_code == 302
    assert not Collaborator.objects.filter(survey=survey).exists()
    unshare = reverse("survey-unshare", args=[survey.slug])
    response = client.post(unshare, {"username": "bo\x00b"}, follow=True)
    assert response.status_code == 200
    assert "NUL" in response.content.decode()
