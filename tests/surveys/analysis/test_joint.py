"""GET …/estimates/?joint=<multi key> (surveys.analysis.joint; docs/analysis.md#joint): the
joint over the option patterns, its marginals equal to the per-option estimates, and bad input
as a 400 naming ``joint``."""

from __future__ import annotations

import itertools
import uuid

import numpy as np
import pytest
from django.test import override_settings

from dpcore.local import joint
from tests.surveys.multi.support import BODY, OPTIONS, open_survey, submit_answer, url

pytestmark = pytest.mark.django_db


def _entry(body, key="drugs"):
    return next(q for q in body["questions"] if q["key"] == key)


def test_joint_cells_and_marginals_match_the_per_option_estimates(api, anon):
    survey = open_survey(api)
    answers = [
        {"cannabis": True, "cocaine": False, "ecstasy": True},
        {"cannabis": True, "cocaine": False, "ecstasy": True},
        {"cannabis": False, "cocaine": False, "ecstasy": False},
        {"cannabis": True, "cocaine": True, "ecstasy": False},
        {"cannabis": False, "cocaine": True, "ecstasy": True},
    ]
    for a in answers:
        assert submit_answer(anon, survey, a).status_code == 201
    body = api.get(url(survey, "estimates/?joint=drugs")).json()
    j = body["joint"]
    assert j["key"] == "drugs" and j["options"] == OPTIONS and j["n"] == 5
    assert len(j["cells"]) == 8 and len(j["covariance"]) == 8
    assert j["cells"][0]["selected"] == [] and j["cells"][7]["selected"] == OPTIONS
    assert j["cells"][5] == {**j["cells"][5], "selected": ["cannabis", "ecstasy"], "reported": 2}
    # Independent: the brute-force system P(r | t) = Π_j (c t_j + d)^{r_j} (1 − c t_j − d)^{1−r_j}
    # with the coin design (c = ½, d = ¼), solved by numpy.
    cells = list(itertools.product([False, True], repeat=3))
    m = np.array(
        [
            [np.prod([(0.5 * t + 0.25) if r else (0.75 - 0.5 * t) for r, t in zip(rp, tp)])
             for tp in cells]
            for rp in cells
        ]
    )  # fmt: skip
    shares = np.array([c["reported"] for c in j["cells"]]) / 5
    pi = np.linalg.solve(m, shares)
    assert np.allclose([c["estimate_unclipped"] for c in j["cells"]], pi, atol=1e-12)
    assert sum(c["estimate"] for c in j["cells"]) == pytest.approx(1.0, abs=1e-12)
    per_option = {o["option"]: o["estimate_unclipped"] for o in _entry(body)["options"]}
    for m_entry in j["marginals"]:
        assert abs(m_entry["estimate_unclipped"] - per_option[m_entry["option"]]) <= 1e-12


# Batches of 10, the production default k: every submission still goes the real way, and its
# batch is published ten at a time (the test settings' k = 1 sealed a batch per respondent,
# most of this test's time). The respondent count below is a multiple of 10: all published.
@override_settings(DENIABLE_ESTIMATE_BATCH=10)
def test_joint_recovers_a_simulated_truth_within_five_se(api):
    """n = 3 000 respondents from a known joint with dependent options, each option randomized by
    the coin. Each cell's Wald z within ±5 (P ≈ 5.7e-7 per cell under the normal limit)."""
    from surveys.collection import simulation
    from testsupport import factories as boundary

    survey = open_survey(api)
    rng = np.random.default_rng(20261127)
    truth = np.array([0.35, 0.05, 0.05, 0.15, 0.05, 0.05, 0.10, 0.20])
    coin = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
    for idx in rng.choice(8, size=3000, p=truth):
        truths = dict(zip(OPTIONS, joint.patterns(3)[idx], strict=True))
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={"drugs": simulation.randomize_multi(coin, truths, rng), "age": "young"},
        )
    j = api.get(url(survey, "estimates/?joint=drugs")).json()["joint"]
    assert j["n"] == 3000
    z = [(c["estimate_unclipped"] - t) / c["std_error"] for c, t in zip(j["cells"], truth)]
    assert max(abs(x) for x in z) < 5, z


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("joint=nope", "No question"),
        ("joint=age", "not a multi"),
        ("joint=drugs&format=csv", "JSON"),
        ("joint=many", "at most 6"),
    ],
)
def test_bad_joint_is_400_naming_the_field(api, query, words):
    many = {"key": "many", "text": "Many", "kind": "multi", "options": list("abcdefg")}
    survey = open_survey(api, {**BODY, "questions": [*BODY["questions"], many]})
    r = api.get(url(survey, f"estimates/?{query}"))
    assert r.status_code == 400, r.content
    assert words in " ".join(r.json()["errors"]["joint"])


def test_no_respondents_gives_null_figures(api):
    survey = open_survey(api)
    j = api.get(url(survey, "estimates/?joint=drugs")).json()["joint"]
    assert j["n"] == 0 and j["covariance"] is None
    assert all(c["estimate"] is None for c in j["cells"])


def test_dashboard_panel_lists_the_patterns(alice, api, anon):
    from django.test import Client
    from django.utils import translation

    survey = open_survey(api)
    for a in ({"cannabis": True, "cocaine": False, "ecstasy": True}, all_false_answer()):
        assert submit_answer(anon, survey, a).status_code == 201
    page = Client()
    page.force_login(alice)
    html = page.get(f"/surveys/{survey.slug}/analysis/").content.decode()
    assert 'id="joint-form"' in html and 'id="joint-result"' not in html
    html = page.get(f"/surveys/{survey.slug}/analysis/?joint=drugs").content.decode()
    assert 'id="joint-result"' in html and "cannabis + ecstasy" in html
    r = page.get(f"/surveys/{survey.slug}/analysis/?joint=age")
    assert r.status_code == 200 and "joint:" in r.content.decode()
    with translation.override("es"):
        assert translation.gettext("Options together") == "Opciones combinadas"


def all_false_answer():
    return dict.fromkeys(OPTIONS, False)
