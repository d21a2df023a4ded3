"""The two-probability device and the crosswise model end to end (issue 15): API, estimates,
group_by, export metadata, builder preview, respondent page (with and without JavaScript) and a
central-DP release. Expected numbers are derived here from the definitions (see
``tests/dpcore/local/test_new_designs.py``), never read from the code under test.
"""

from __future__ import annotations

import math
import re
import uuid

import numpy as np
import pytest
from django.test import override_settings

from surveys import services
from surveys.models import Submission, Survey
from tests.surveys.api.support import open_survey, url
from testsupport import factories

pytestmark = pytest.mark.django_db

P_INNOCUOUS = 0.25
A, B = 0.75, 0.25
CROSSWISE_TEXT = "My mother was born in January, February or March."
BODY = {
    "title": "New designs",
    "questions": [
        {
            "key": "cross",
            "text": "I have used a fake receipt.",
            "kind": "yes_no",
            "design": {
                "name": "crosswise",
                "innocuous_prevalence": P_INNOCUOUS,
                "innocuous_text": CROSSWISE_TEXT,
            },
        },
        {
            "key": "kuk",
            "text": "I have cheated on an exam.",
            "kind": "yes_no",
            "design": {"name": "two_probability", "p_yes_if_trait": A, "p_yes_if_not": B},
        },
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "old"]},
    ],
}


def _open_survey(api) -> Survey:
    return open_survey(api, BODY)


def test_specs_are_stored_and_described(api):
    survey = _open_survey(api)
    body = api.get(url(survey)).json()
    designs = {q["key"]: q.get("design") for q in body["questions"]}
    assert designs["cross"]["name"] == "crosswise"
    assert designs["cross"]["innocuous_text"] == CROSSWISE_TEXT
    assert designs["kuk"]["p_yes_if_trait"] == A and designs["kuk"]["p_yes_if_not"] == B


@pytest.mark.parametrize(
    ("design", "field"),
    [
        (
            {"name": "crosswise", "innocuous_prevalence": 0.5, "innocuous_text": "x"},
            "innocuous_prevalence",
        ),
        (
            {"name": "crosswise", "innocuous_prevalence": 1e-6, "innocuous_text": "x"},
            "innocuous_prevalence",
        ),
        (
            {"name": "crosswise", "innocuous_prevalence": 0.3, "innocuous_text": ""},
            "innocuous_text",
        ),
        ({"name": "two_probability", "p_yes_if_trait": 0.2, "p_yes_if_not": 0.4}, "p_yes_if_not"),
        ({"name": "two_probability", "p_yes_if_trait": 0.5}, "p_yes_if_not"),
    ],
)
def test_bad_specs_are_400_naming_the_field(api, design, field):
    body = {
        "title": "x",
        "questions": [{"key": "q", "text": "Q?", "kind": "yes_no", "design": design}],
    }
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 400
    assert any(field in path for path in r.json()["errors"]), r.json()


def test_one_sided_two_probability_is_refused(api):
    body = {
        "title": "x",
        "questions": [
            {
                "key": "q",
                "text": "Q?",
                "kind": "yes_no",
                "design": {"name": "two_probability", "p_yes_if_trait": 0.5, "p_yes_if_not": 0.0},
            }
        ],
    }
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 400 and "ε = ∞" in str(r.json())


# Batches of 10, the production default k: every submission still goes the real way, and its
# batch is published ten at a time (the test settings' k = 1 sealed a batch per respondent,
# most of this test's time). The respondent count below is a multiple of 10: all published.
@override_settings(DENIABLE_ESTIMATE_BATCH=10)
@pytest.mark.slow  # 1,600 respondents posted through the API (~5 s): make test and CI run it
def test_simulated_respondents_through_the_api_recover_the_prevalences(api, anon):
    """n = 1600 respondents through the JSON endpoint; π(cross) = 0.3, π(kuk) = 0.2.

    SE(crosswise) at λ = ¼·0.3 + ¾·0.7 = 0.6: √(0.24/1600)/½ ≈ 0.0245; SE(two probabilities) at
    λ = ½·0.2 + ¼ = 0.35: √(0.2275/1600)/½ ≈ 0.0239. Tolerance 5 SE (≈ 0.12): a false failure
    has probability below 10⁻⁶."""
    survey = _open_survey(api)
    rng = np.random.default_rng(20261122)
    n = 1600
    same_count = kuk_yes = 0
    for i in range(n):
        cross_truth = bool(rng.random() < 0.3)
        kuk_truth = bool(rng.random() < 0.2)
        same = bool((rng.random() < P_INNOCUOUS) == cross_truth)
        kuk = bool(rng.random() < (A if kuk_truth else B))
        same_count += same
        kuk_yes += kuk
        body = {
            "submission_id": str(uuid.uuid4()),
            "randomizer": "browser",
            "answers": {"cross": same, "kuk": kuk, "age": "young" if i % 2 else "old"},
        }
        r = anon.post(url(survey, "responses/"), body, format="json")
        assert r.status_code in (200, 201), r.content
    estimates = api.get(url(survey, "estimates/")).json()
    by_key = {q["key"]: q for q in estimates["questions"]}
    cross, kuk = by_key["cross"], by_key["kuk"]
    # Moment estimators, from scratch.
    lam_c, lam_k = same_count / n, kuk_yes / n
    assert cross["reported_yes"] == same_count
    assert cross["estimate_unclipped"] == pytest.approx(
        (lam_c + P_INNOCUOUS - 1) / (2 * P_INNOCUOUS - 1)
    )
    assert cross["std_error"] == pytest.approx(math.sqrt(lam_c * (1 - lam_c) / n) / 0.5)
    assert kuk["estimate_unclipped"] == pytest.approx((lam_k - B) / (A - B))
    assert abs(cross["estimate"] - 0.3) < 5 * 0.0245
    assert abs(kuk["estimate"] - 0.2) < 5 * 0.0239
    assert cross["epsilon"] == pytest.approx(math.log(3))
    assert kuk["epsilon"] == pytest.approx(math.log(3))
    assert cross["ci_low"] <= cross["estimate"] <= cross["ci_high"]

    grouped = api.get(url(survey, "estimates/?group_by=age"))
    assert grouped.status_code == 200
    assert "cross" in grouped.content.decode()

    meta = api.get(url(survey, "responses/export/metadata/")).json()
    columns = {c["key"]: c for c in meta["columns"]}
    assert columns["cross"]["rrreg"] == (
        'RRreg::RRuni(response = cross, data = reports, model = "Crosswise", p = 0.25)'
    )
    assert columns["kuk"]["rrreg"] == (
        'RRreg::RRuni(response = kuk, data = reports, model = "Kuk", p = c(0.75, 0.25))'
    )


def test_builder_preview_states_the_crosswise_assumption(api):
    design = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": CROSSWISE_TEXT}
    r = api.post("/api/v1/designs/preview/", {"kind": "yes_no", "design": design}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["epsilon"] == pytest.approx(math.log(3))
    assert "cannot find out" in body["assumption"]
    # Planned half-width from scratch: z·√(¼/1000)/|2p − 1|.
    assert body["planned_half_width"] == pytest.approx(
        1.959963984540054 * math.sqrt(0.25 / 1000) / 0.5
    )
    r = api.post(
        "/api/v1/designs/preview/",
        {
            "kind": "yes_no",
            "design": {"name": "two_probability", "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
        },
        format="json",
    )
    assert r.status_code == 200 and r.json()["epsilon"] == pytest.approx(math.log(3))


def test_respondent_page_shows_both_statements_and_same_different(client, alice):
    survey = factories.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    page = client.get(f"/s/{survey.slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert CROSSWISE_TEXT in html and "I have used a fake receipt." in html
    assert re.search(r'name="q-cross" value="same\s*"', html)
    assert re.search(r'name="q-cross" value="different\s*"', html)
    assert "cannot find out whether the second statement" in html
    data = page.context["data"]
    cross = next(q for q in data["questions"] if q["key"] == "cross")
    assert cross["thresholds"] == {} and cross["protection"]["randomizer"]["kind"] == "none"
    kuk = next(q for q in data["questions"] if q["key"] == "kuk")
    grid = 2**53
    assert kuk["thresholds"] == {"truth": grid // 2, "yes": 3 * grid // 4}
    # Two coin flips realise ¾/¼ exactly: the no-JS page can run it.
    assert page.context["physical_possible"]


def test_no_js_post_stores_same_as_true(client, api, alice):
    survey = factories.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    r = client.post(
        f"/s/{survey.slug}/submit/",
        {"q-cross": "same", "q-kuk": "yes", "q-age": "young"},
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    assert Submission.objects.filter(survey=survey).count() == 1
    body = api.get(url(survey, "estimates/")).json()
    cross = next(q for q in body["questions"] if q["key"] == "cross")
    assert cross["n"] == 1 and cross["reported_yes"] == 1
    # "different" is stored as False.
    r = client.post(
        f"/s/{survey.slug}/submit/", {"q-cross": "different", "q-kuk": "no", "q-age": "old"}
    )
    assert r.status_code == 302
    cross = next(
        q for q in api.get(url(survey, "estimates/")).json()["questions"] if q["key"] == "cross"
    )
    assert cross["n"] == 2 and cross["reported_yes"] == 1


def test_central_dp_release_debiases_the_crosswise_counts(
    api, alice, django_capture_on_commit_callbacks
):
    """A Laplace release over the crosswise and two-probability questions: each noisy count is
    debiased with the design's own (c, d) — for crosswise c = 2p − 1 = −½, d = ¾ — so
    ``π̂ = (ỹ/(ỹ + ñ) − d)/c``, recomputed here from the released noisy counts."""
    survey = factories.survey_create(
        owner=alice, data={**BODY, "budget": {"epsilon": 1.0, "delta": 1e-6}}
    )
    services.survey_open(survey=survey)
    for i in range(60):
        factories.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={"cross": i % 3 == 0, "kuk": i % 4 == 0, "age": "young" if i % 2 else "old"},
        )
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            url(survey, "releases/"), {"mechanism": "laplace", "epsilon": 0.5}, format="json"
        )
    assert r.status_code == 202, r.content
    detail = api.get(r.json()["url"]).json()
    assert detail["status"] == "done"
    rows = {q["key"]: q for q in detail["results"]["questions"]}
    for key, (c, d) in {"cross": (-0.5, 0.75), "kuk": (A - B, B)}.items():
        counts = rows[key]["noisy_counts"]
        total = counts["yes"] + counts["no"]
        if total >= 1:
            expected = (counts["yes"] / total - d) / c
            assert rows[key]["estimate_unclipped"] == pytest.approx(expected)
        assert 0.0 <= rows[key]["ci_low"] <= rows[key]["ci_high"] <= 1.0


def test_dashboard_states_the_crosswise_assumption(client, alice):
    survey = factories.survey_create(owner=alice, data=BODY)
    client.force_login(alice)
    html = client.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert CROSSWISE_TEXT in html and "cannot learn whether the innocuous statement" in html


def test_the_words_never_call_a_crosswise_question_randomized(alice, client):
    """The thank-you lists and counts (surveys.pages.protection.survey_handling): a crosswise
    question
    draws nothing, so it is neither "randomized on this device" nor "sent exactly as entered"."""
    from surveys.pages.protection import survey_handling

    survey = factories.make_survey(alice, BODY)
    questions = list(survey.questions.all())
    handling = survey_handling(questions, {q.key for q in questions})
    assert handling["randomized"] == ["I have cheated on an exam."]
    assert handling["paired"] == ["I have used a fake receipt."]
    assert handling["direct"] == ["Age group"]
    assert handling["summary"].startswith(
        "1 of your 3 answers is randomized before it is sent. 1 is sent exactly"
    )
    assert (
        "One question asks only whether two statements are both true or both false"
        in (handling["sent"])
    )
    html = client.get(f"/s/{survey.slug}/").content.decode()
    assert (
        "<strong>Randomized on this device:</strong></p>\n"
        '  <ul class="handling-list"><li data-key="kuk">I have cheated on an exam.</li></ul>'
    ) in html
    assert "(nothing randomized):</strong></p>" in html
    assert '<li data-key="cross">I have used a fake receipt.</li>' in html
