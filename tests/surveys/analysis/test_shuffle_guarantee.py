"""The shuffled, randomized-only export's central guarantee (issue 13): in the export metadata
and on the dashboard, with its assumptions in plain words."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dpcore.central import shuffle
from surveys.analysis.shuffle_guarantee import shuffled_export_guarantee
from surveys.definitions import question_designs as designs
from surveys.models import Submission
from testsupport.factories import RELEASE_QUESTIONS, make_user, reload, submit_many
from testsupport.factories import make_release_survey as make_survey
from testsupport.factories import make_survey as make_plain_survey

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
    # Two columns: a row is a product of two randomizers, so only the any-randomizer bound holds.
    assert guarantee["method"] == "clones-2021"
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


@pytest.mark.parametrize(("key", "k"), [("cheated", 2), ("drug", 3)])
def test_one_randomized_response_column_uses_the_stronger_pair(key, k):
    """Issue 27: a file of one yes/no (k = 2) or k-RR column is a shuffle of k-ary randomized
    responses, for which the stronger clone pair (clones-2023) is sound and tighter."""
    owner = make_user("owner")
    question = next(q for q in RELEASE_QUESTIONS if q["key"] == key)
    body = {
        "title": "One column",
        "budget": {"epsilon": 1.0, "delta": 1e-6},
        "questions": [question, RELEASE_QUESTIONS[2]],  # + a direct question, left out
    }
    survey = make_plain_survey(owner, body)
    answers = {"cheated": lambda i: i % 3 == 0, "drug": lambda i: ["none", "other"][i % 2]}[key]
    submit_many(survey, 60, lambda i: {key: answers(i), "region": "north"})
    guarantee = shuffled_export_guarantee(reload(survey))
    assert guarantee is not None and guarantee["columns"] == [key]
    n, local, delta = guarantee["rows"], guarantee["local_epsilon_per_row"], guarantee["delta"]
    assert guarantee["method"] == "clones-2023"
    assert guarantee["epsilon"] == shuffle.shuffled_guarantee(n, local, delta, k).epsilon
    assert guarantee["epsilon"] <= shuffle.shuffled_epsilon(n, local, delta)
    assert "2023" in guarantee["method_description"]
