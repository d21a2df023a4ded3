"""The shuffled, randomized-only export's central guarantee (issue 13): in the export metadata
and on the dashboard, with its assumptions in plain words."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dpcore.central import shuffle
from surveys.definitions import question_designs as designs
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
    # Announced only as a gain (issue 22.12; the gain itself: the two tests below).
    assert guarantee["gain"] == (guarantee["epsilon"] < local)
    assert ('id="shuffle-guarantee"' in html) == guarantee["gain"]
    assert ("Feldman, McMillan &amp; Talwar 2021" in html) == guarantee["gain"]


def test_no_gain_is_not_announced_as_a_guarantee():
    """Issue 22.12: with few rows the shuffled bound is the local ε itself (6.879 = 6.879): the
    page said the file "gets a central guarantee of ε = 6.879", read as a gain. Shown only when
    it is one, and saying what it applies to."""
    owner = make_user("owner")
    survey = make_survey(owner, respondents=3)
    api = APIClient()
    api.force_authenticate(owner)
    guarantee = api.get(f"/api/v1/surveys/{survey.slug}/responses/export/metadata/").json()[
        "shuffled_randomized_only"
    ]
    assert guarantee["epsilon"] >= guarantee["local_epsilon_per_row"]  # no amplification
    assert guarantee["gain"] is False
    page = Client()
    page.force_login(owner)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert "gets a central guarantee" not in html
    assert 'id="shuffle-no-gain"' in html


def test_a_gain_says_what_it_applies_to():
    owner = make_user("owner")
    survey = make_survey(owner, respondents=400)
    api = APIClient()
    api.force_authenticate(owner)
    guarantee = api.get(f"/api/v1/surveys/{survey.slug}/responses/export/metadata/").json()[
        "shuffled_randomized_only"
    ]
    assert guarantee["gain"] is True and guarantee["epsilon"] < guarantee["local_epsilon_per_row"]
    page = Client()
    page.force_login(owner)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    item = html[html.index('id="shuffle-guarantee"') :][:1500]
    assert "only to that file" in item and "not to the estimates" in item
