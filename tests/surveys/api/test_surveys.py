"""API v1 (docs/api.md): create, list, detail, patch, open and close a survey."""

from __future__ import annotations

import math

import pytest

from tests.surveys.api.support import API, url
from testsupport.factories import survey_body

pytestmark = pytest.mark.django_db


def test_create_survey(api):
    r = api.post(f"{API}/surveys/", survey_body(), format="json")
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["status"] == "draft" and body["access"] == "open" and len(body["slug"]) >= 8
    assert body["budget"] == {"epsilon": 1.0, "delta": 1e-6}
    eps = {q["key"]: q["epsilon"] for q in body["questions"]}
    assert eps["coin"] == pytest.approx(math.log(3)) and eps["age"] is None
    assert body["epsilon_local_total"] == pytest.approx(2 * math.log(3) + 1)
    assert body["questions"][0]["design"]["name"] == "forced_response"
    assert body["links"]["respondent"].endswith(f"/s/{body['slug']}/")
    assert body["respondents"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (survey_body(title=""), "title"),
        (survey_body(budget={"epsilon": -1}), "budget.epsilon"),
        (survey_body(budget={"delta": 2}), "budget.delta"),
        (
            survey_body(
                questions=[
                    {
                        "key": "q",
                        "text": "?",
                        "kind": "yes_no",
                        "design": {
                            "name": "forced_response",
                            "p_truth": 0.5,
                            "p_yes": 0.5,
                            "p_no": 0,
                        },
                    }
                ]
            ),
            "questions[0].design",
        ),
        (
            survey_body(
                questions=[
                    {
                        "key": "q",
                        "text": "?",
                        "kind": "yes_no",
                        "design": {"name": "warner", "p": 1.5},
                    }
                ]
            ),
            "questions[0].design.p",
        ),
        (
            survey_body(
                questions=[{"key": "q", "text": "?", "kind": "number", "min": 5, "max": 1}]
            ),
            "questions[0].max",
        ),
    ],
)
def test_create_survey_400(api, body, field):
    r = api.post(f"{API}/surveys/", body, format="json")
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()


def test_create_survey_malformed_bodies(api):
    r = api.post(f"{API}/surveys/", "{not json", content_type="application/json")
    assert r.status_code == 400
    r = api.post(f"{API}/surveys/", "[1, 2]", content_type="application/json")
    assert r.status_code == 400 and "non_field_errors" in r.json()["errors"]
    r = api.post(f"{API}/surveys/", '{"title": NaN}', content_type="application/json")
    assert r.status_code == 400


def test_list_and_detail(api, bob_api, draft):
    listed = api.get(f"{API}/surveys/").json()
    assert [s["slug"] for s in listed] == [draft.slug]
    assert bob_api.get(f"{API}/surveys/").json() == []
    detail = api.get(url(draft))
    assert detail.status_code == 200 and detail.json()["title"] == "Every kind"
    assert api.get(f"{API}/surveys/unknown/").status_code == 404


def test_patch(api, draft):
    r = api.patch(url(draft), {"title": "Renamed", "planned_n": 50}, format="json")
    assert r.status_code == 200 and r.json()["title"] == "Renamed" and r.json()["planned_n"] == 50
    assert len(r.json()["questions"]) == 5
    r = api.patch(
        url(draft), {"questions": [{"key": "x", "text": "?", "kind": "yes_no"}]}, format="json"
    )
    assert [q["key"] for q in r.json()["questions"]] == ["x"]
    r = api.patch(url(draft), {"budget": {"epsilon": "lots"}}, format="json")
    assert r.status_code == 400 and "budget.epsilon" in r.json()["errors"]
    api.post(url(draft, "open/"))
    r = api.patch(url(draft), {"title": "Too late"}, format="json")
    assert r.status_code == 409 and r.json()["error"] == "not_draft"


def test_open_close(api, draft):
    assert api.post(url(draft, "close/")).status_code == 409
    r = api.post(url(draft, "open/"))
    assert r.status_code == 200 and r.json()["status"] == "open"
    assert api.post(url(draft, "open/")).status_code == 409
    r = api.post(url(draft, "close/"))
    assert r.status_code == 200 and r.json()["status"] == "closed"
    assert api.post(url(draft, "close/")).status_code == 409
