"""The shuffled, randomized-only export's central guarantee (issue 13): in the export metadata
and on the dashboard, with its assumptions in plain words."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dpcore.central import shuffle
from surveys import designs
from surveys.models import Submission
from testsupport.factories import make_release_survey as make_survey
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


def test_metadata_states_the_shuffled_guarantee():
    owner = make_user("owner")
    survey = make_survey(owner, respondents=40)
    api = APIClient()
    api.force_authenticate(owner)
    body = api.get(f"/api/v1/surveys/{survey.slug}/responses/export/metadata/").json()
    guarantee = body["shuffled_randomized_only"]
    n = Submission.objects.filter(survey=survey, sealed=True).count()
    assert n >= 2
    randomized = [q for q in survey.questions.all() if designs.design_description(q)]
    local = sum(designs.design_description(q)["epsilon"] for q in randomized)
    assert guarantee["columns"] == [q.key for q in randomized] == ["cheated", "drug"]
    assert guarantee["rows"] == n
    assert guarantee["local_epsilon_per_row"] == pytest.approx(local)
    assert guarantee["delta"] == survey.budget_delta
    assert guarantee["epsilon"] == shuffle.shuffled_epsilon(n, local, survey.budget_delta)
    assert 0 < guarantee["epsilon"] <= local
    assert len(guarantee["assumptions"]) >= 3 and "shuffled" in " ".join(guarantee["assumptions"])

    page = Client()
    page.force_login(owner)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="shuffle-guarantee"' in html
    assert "Feldman, McMillan &amp; Talwar 2021" in html
