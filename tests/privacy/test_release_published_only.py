"""Releases read published submissions only, and the budget is capped (issue 21, item 2; DESIGN
§8.5).

The attack: a researcher watches the published estimates (exact counts of the published
batches), someone submits, and a release at a high ε right then, minus the published counts,
gives that one person's report. Releases now count the published batches only, so the release
does not move with an unpublished submission; and a survey's budget is at most
``DENIABLE_MAX_BUDGET_EPSILON`` (10 by default), so no release can use an ε that large.
"""

from __future__ import annotations

import pytest
from django.test import override_settings

from privacy.models import Release
from surveys import selectors
from surveys.models import Submission
from surveys.services import survey_close
from testsupport.factories import (
    api_client,
    make_release,
    make_survey,
    make_user,
    reload,
    submit,
)

# Both backends (CI runs them again on SQLite, the embedded default).
pytestmark = [pytest.mark.django_db, pytest.mark.both_backends]

K = 5
QUESTIONS = [{"key": "cheated", "text": "Did you cheat?", "kind": "yes_no"}]
# ε = 1000 per release (the attacker's own budget; the cap is lifted for this test only, to show
# the tail itself is out of the release, not merely drowned). The yes count's noise is discrete
# Laplace with scale t = Δ/ε ≤ 2/1000, so P(noise ≠ 0) ≤ 2·e^(−1/t) = 2·e^(−500): the released
# count is the exact count.
ATTACK_EPSILON = 1000.0


def _released_yes(survey, owner) -> int:
    release = make_release(survey, owner, {"mechanism": "laplace", "epsilon": ATTACK_EPSILON})
    assert release.status == Release.Status.DONE, release.error
    result = next(q for q in release.results["questions"] if q["key"] == "cheated")
    return int(result["noisy_counts"]["yes"])


@override_settings(DENIABLE_ESTIMATE_BATCH=K, DENIABLE_MAX_BUDGET_EPSILON=1e6)
@pytest.mark.parametrize("victim_report", [True, False])
def test_a_release_does_not_move_with_an_unpublished_submission(victim_report: bool) -> None:
    owner = make_user("owner")
    survey = reload(
        make_survey(
            owner,
            {"title": "T", "budget": {"epsilon": 1e5, "delta": 1e-6}, "questions": QUESTIONS},
        )
    )
    for i in range(K):  # one published batch
        submit(survey, {"cheated": i % 2 == 0})
    published = selectors.survey_counts(survey=survey).cells[""]["cheated"]["yes"]
    submit(survey, {"cheated": victim_report})  # the victim: unpublished, alone in the tail
    assert Submission.objects.filter(survey=survey, sealed=False).count() == 1
    # Without the fix the difference was the victim's report (1 or 0) exactly.
    assert _released_yes(survey, owner) - published == 0


@override_settings(DENIABLE_ESTIMATE_BATCH=K, DENIABLE_MAX_BUDGET_EPSILON=1e6)
def test_a_closed_surveys_tail_is_never_released() -> None:
    """The < k reports left when a survey closes are never published, by estimates or releases
    (number sums included)."""
    owner = make_user("owner")
    questions = [
        *QUESTIONS,
        {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 10},
    ]
    survey = reload(
        make_survey(owner, {"title": "T", "budget": {"epsilon": 1e5}, "questions": questions})
    )
    for _ in range(K + 2):
        submit(survey, {"cheated": True, "hours": 10})
    survey_close(survey=survey)
    assert _released_yes(survey, owner) == K  # exact at this ε (see ATTACK_EPSILON)
    release = make_release(survey, owner, {"mechanism": "laplace", "epsilon": ATTACK_EPSILON})
    hours = next(q for q in release.results["questions"] if q["key"] == "hours")
    assert hours["noisy_count"] == K, hours  # n from the exact sums: published rows only


@pytest.mark.parametrize("method", ["post", "patch"])
def test_the_budget_is_capped(method: str) -> None:
    owner = make_user("owner")
    api = api_client(owner)
    body = {"title": "T", "questions": QUESTIONS, "budget": {"epsilon": 10.000001}}
    if method == "post":
        r = api.post("/api/v1/surveys/", body, format="json")
    else:
        survey = make_survey(owner, {"title": "T", "questions": QUESTIONS}, open_=False)
        r = api.patch(f"/api/v1/surveys/{survey.slug}/", body, format="json")
    assert r.status_code == 400, r.content
    assert "budget.epsilon" in r.json()["errors"], r.json()
    for huge in (1e308, 1e6, 11):
        body["budget"] = {"epsilon": huge}
        r = (api.post if method == "post" else api.patch)(
            "/api/v1/surveys/" if method == "post" else f"/api/v1/surveys/{survey.slug}/",
            body,
            format="json",
        )
        assert r.status_code == 400 and "budget.epsilon" in r.json()["errors"], r.content
    body["budget"] = {"epsilon": 10}
    ok = (api.post if method == "post" else api.patch)(
        "/api/v1/surveys/" if method == "post" else f"/api/v1/surveys/{survey.slug}/",
        body,
        format="json",
    )
    assert ok.status_code in (200, 201), ok.content


@override_settings(DENIABLE_MAX_BUDGET_EPSILON=2.5)
def test_the_cap_is_a_setting() -> None:
    api = api_client(make_user("owner"))
    body = {"title": "T", "questions": QUESTIONS, "budget": {"epsilon": 3}}
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 400 and "budget.epsilon" in r.json()["errors"], r.content
    assert "2.5" in str(r.json()["errors"]["budget.epsilon"])


def test_a_release_above_the_budget_is_refused_naming_the_field() -> None:
    owner = make_user("owner")
    survey = make_survey(owner, {"title": "T", "budget": {"epsilon": 1}, "questions": QUESTIONS})
    submit(survey, {"cheated": True})
    r = api_client(owner).post(
        f"/api/v1/surveys/{survey.slug}/releases/",
        {"mechanism": "laplace", "epsilon": 5},
        format="json",
    )
    # The contract's refusal (DESIGN §8): 409 budget_exceeded naming ε and what remains.
    assert r.status_code == 409, r.content
    body = r.json()
    assert body["error"] == "budget_exceeded" and body["remaining"]["epsilon"] == 1.0, body
    assert "ε" in body["detail"], body
    assert not Release.objects.filter(survey=survey).exists()
