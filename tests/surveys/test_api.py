"""API v1 (docs/api.md): every status code, permissions, exports and the OpenAPI schema."""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Invitation, Submission, Tally
from tests.surveys.tally_reading import tally_totals
from testsupport import factories
from testsupport.factories import full_answers, new_id, submit, survey_body

pytestmark = pytest.mark.django_db

API = "/api/v1"


def url(survey, suffix: str = "") -> str:
    return f"{API}/surveys/{survey.slug}/{suffix}"


def post_response(client, survey, answers=None, **body):
    payload = {"submission_id": new_id(), "randomizer": "browser"}
    payload["answers"] = full_answers() if answers is None else answers
    payload.update(body)
    return client.post(url(survey, "responses/"), payload, format="json")


# --- auth ---------------------------------------------------------------------------------------


def test_token_endpoint(alice):
    client = APIClient()
    r = client.post(
        f"{API}/auth/token/", {"username": "alice", "password": "alice-pw-123"}, format="json"
    )
    assert r.status_code == 200
    token = r.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get(f"{API}/surveys/").status_code == 200
    creds = {"username": "alice", "password": "alice-pw-123"}
    again = APIClient().post(f"{API}/auth/token/", creds, format="json")
    assert again.json()["token"] == token

    bad = APIClient().post(
        f"{API}/auth/token/", {"username": "alice", "password": "wrong"}, format="json"
    )
    assert bad.status_code == 400 and "non_field_errors" in bad.json()["errors"]
    missing = APIClient().post(f"{API}/auth/token/", {"username": "alice"}, format="json")
    assert missing.status_code == 400 and "password" in missing.json()["errors"]


def test_researcher_endpoints_need_auth(survey):
    anon = APIClient()
    for method, path in [
        ("get", f"{API}/surveys/"),
        ("post", f"{API}/surveys/"),
        ("get", url(survey)),
        ("get", url(survey, "estimates/")),
        ("get", url(survey, "responses/export/")),
        ("get", url(survey, "responses/export/metadata/")),
        ("get", url(survey, "invitations/")),
        ("post", url(survey, "invitations/")),
        ("post", url(survey, "invitations/revoke/")),
        ("post", f"{API}/designs/preview/"),
    ]:
        r = getattr(anon, method)(path, {}, format="json") if method == "post" else anon.get(path)
        assert r.status_code in (401, 403), (path, r.status_code)


# --- surveys ------------------------------------------------------------------------------------


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


def test_invitations(api, invite_survey, survey):
    r = api.post(url(invite_survey, "invitations/"), {"count": 3}, format="json")
    assert r.status_code == 201 and len(r.json()["tokens"]) == 3
    assert Invitation.objects.count() == 3
    for count in (0, 10_001, "x", None):
        r = api.post(url(invite_survey, "invitations/"), {"count": count}, format="json")
        assert r.status_code == 400 and "count" in r.json()["errors"]
    r = api.post(url(survey, "invitations/"), {"count": 3}, format="json")
    assert r.status_code == 409 and r.json()["error"] == "not_invite_only"


def _counts(api, survey) -> dict:
    r = api.get(url(survey, "invitations/"))
    assert r.status_code == 200, r.content
    return r.json()


def test_invitation_links_json_and_csv(api, invite_survey):
    assert _counts(api, invite_survey) == {"issued": 0, "used": 0, "revoked": 0, "remaining": 0}
    r = api.post(url(invite_survey, "invitations/"), {"count": 2, "format": "json"}, format="json")
    assert r.status_code == 201
    body = r.json()
    respond = f"http://testserver/s/{invite_survey.slug}/#t="
    assert body["links"] == [respond + t for t in body["tokens"]]

    r = api.post(url(invite_survey, "invitations/"), {"count": 3, "format": "csv"}, format="json")
    assert r.status_code == 201 and r["Content-Type"] == "text/csv; charset=utf-8"
    assert r["Content-Disposition"] == (
        f'attachment; filename="{invite_survey.slug}-invitations.csv"'
    )
    assert "no-store" in r["Cache-Control"]
    lines = r.content.decode().split("\n")
    assert lines[-1] == "" and len(lines) == 4  # one link per line, newline-terminated
    links = lines[:-1]
    assert all(link.startswith(respond) for link in links) and len(set(links)) == 3
    # The CSV's tokens are real, working tokens (digests stored, the tokens themselves not).
    tokens = [link.removeprefix(respond) for link in links]
    stored = set(Invitation.objects.values_list("digest", flat=True))
    assert {services.invitation_digest(t) for t in tokens + body["tokens"]} == stored
    assert not any(t in d for t in tokens for d in stored)
    assert post_response(APIClient(), invite_survey, token=tokens[0]).status_code == 201
    assert _counts(api, invite_survey) == {"issued": 5, "used": 1, "revoked": 0, "remaining": 4}


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"count": 2, "format": "xml"}, {"format"}),
        ({"count": 2, "format": None}, {"format"}),
        ({"count": 2, "format": ["csv"]}, {"format"}),
        ({"count": 0, "format": "pdf"}, {"count", "format"}),
        ({"count": 2.5}, {"count"}),
        ({"count": True}, {"count"}),
        ({"count": "2", "format": "csv"}, {"count"}),
        ({"format": "csv"}, {"count"}),
    ],
)
def test_invitation_create_400_names_the_field(api, invite_survey, body, fields):
    r = api.post(url(invite_survey, "invitations/"), body, format="json")
    assert r.status_code == 400 and set(r.json()["errors"]) == fields, r.json()
    assert Invitation.objects.count() == 0


def test_invitation_bodies_must_be_objects(api, invite_survey):
    for suffix in ("invitations/", "invitations/revoke/"):
        r = api.post(url(invite_survey, suffix), [1], format="json")
        assert r.status_code == 400 and "non_field_errors" in r.json()["errors"]
        r = api.post(url(invite_survey, suffix), "{", content_type="application/json")
        assert r.status_code == 400


def test_invitation_revoke(api, anon, invite_survey):
    tokens = api.post(url(invite_survey, "invitations/"), {"count": 4}, format="json").json()[
        "tokens"
    ]
    assert post_response(anon, invite_survey, token=tokens[0]).status_code == 201
    r = api.post(url(invite_survey, "invitations/revoke/"))
    assert r.status_code == 200
    assert r.json() == {
        "revoked": 3,
        "counts": {"issued": 4, "used": 1, "revoked": 3, "remaining": 0},
    }
    # A revoked token is refused, and says so; the used one still says "used".
    r = post_response(anon, invite_survey, token=tokens[1])
    assert r.status_code == 409 and r.json()["error"] == "token_revoked"
    assert "withdrawn" in r.json()["detail"]
    r = post_response(anon, invite_survey, token=tokens[0])
    assert r.status_code == 409 and r.json()["error"] == "token_used"
    assert Submission.objects.filter(survey=invite_survey).count() == 1
    # Revoking again revokes nothing; new tokens after a revoke work.
    again = api.post(url(invite_survey, "invitations/revoke/"), {}, format="json").json()
    assert again["revoked"] == 0
    (fresh,) = api.post(url(invite_survey, "invitations/"), {"count": 1}, format="json").json()[
        "tokens"
    ]
    assert post_response(anon, invite_survey, token=fresh).status_code == 201
    assert _counts(api, invite_survey) == {"issued": 5, "used": 2, "revoked": 3, "remaining": 0}


def test_invitation_revoke_touches_only_its_survey(api, alice):
    one, two = (
        factories.survey_create(owner=alice, data=survey_body(access="invite")) for _ in range(2)
    )
    factories.invitations_create(survey=one, count=2)
    factories.invitations_create(survey=two, count=3)
    assert api.post(url(one, "invitations/revoke/")).json()["revoked"] == 2
    assert _counts(api, two) == {"issued": 3, "used": 0, "revoked": 0, "remaining": 3}


def test_invitations_are_not_linked_to_submissions():
    """Privacy: the invitations table keeps a digest and two flags per token, nothing that could
    join it to a submission (no foreign key, no time of use)."""
    fields = {f.name for f in Invitation._meta.get_fields()}
    assert fields == {"id", "survey", "digest", "used", "revoked", "created_on"}
    assert not any(
        f.is_relation and f.related_model is Submission for f in Invitation._meta.get_fields()
    )


# --- responses ----------------------------------------------------------------------------------


def test_response_accepted_duplicate_conflict(anon, survey):
    sid = new_id()
    r = post_response(anon, survey, submission_id=sid)
    assert r.status_code == 201 and r.json() == {"submission_id": sid, "status": "accepted"}
    r = post_response(anon, survey, submission_id=sid)
    assert r.status_code == 200 and r.json()["status"] == "duplicate"
    r = post_response(anon, survey, full_answers(coin=False), submission_id=sid)
    assert r.status_code == 409 and r.json()["error"] == "duplicate_conflict"
    assert Submission.objects.count() == 1


def test_response_needs_no_csrf_even_with_a_session(alice, survey):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert post_response(client, survey).status_code == 201


def test_response_404_and_409(anon, survey, draft, alice):
    assert post_response(anon, survey).status_code == 201
    r = anon.post(f"{API}/surveys/nope/responses/", {}, format="json")
    assert r.status_code == 404
    other = factories.survey_create(owner=alice, data=survey_body())
    assert post_response(anon, other).status_code == 404  # a draft is not public
    services.survey_close(survey=survey)
    r = post_response(anon, survey)
    assert r.status_code == 409 and r.json()["error"] == "survey_closed"


def test_response_tokens(api, anon, invite_survey):
    (token,) = api.post(url(invite_survey, "invitations/"), {"count": 1}, format="json").json()[
        "tokens"
    ]
    r = post_response(anon, invite_survey)
    assert r.status_code == 409 and r.json()["error"] == "token_required"
    assert post_response(anon, invite_survey, token=token).status_code == 201
    r = post_response(anon, invite_survey, token=token)
    assert r.status_code == 409 and r.json()["error"] == "token_used"
    r = post_response(anon, invite_survey, token="forged")
    assert r.status_code == 400 and "token" in r.json()["errors"]


def test_response_cap(anon, survey):
    survey.response_cap = 1
    survey.save()
    assert post_response(anon, survey).status_code == 201
    r = post_response(anon, survey)
    assert r.status_code == 409 and r.json()["error"] == "response_cap_reached"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"submission_id": "123"}, "submission_id"),
        ({"submission_id": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, "submission_id"),  # v1
        ({"randomizer": "server"}, "randomizer"),
        ({"answers": ["coin"]}, "answers"),
        ({"answers": full_answers(coin="true")}, "answers.coin"),
        ({"answers": full_answers(nope=True)}, "answers.nope"),
        ({"answers": full_answers(party="zz")}, "answers.party"),
        ({"answers": full_answers(age="zz")}, "answers.age"),
        ({"answers": full_answers(hours=1e9)}, "answers.hours"),
        ({"answers": full_answers(hours=[1])}, "answers.hours"),
        ({"answers": {"coin": True}}, "answers.mirror"),
    ],
)
def test_response_400_names_the_field(anon, survey, body, field):
    submit(survey)  # some data already there
    before = (Submission.objects.count(), Tally.objects.count(), tally_totals())
    r = post_response(anon, survey, **body)
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()
    assert (Submission.objects.count(), Tally.objects.count(), tally_totals()) == before


def test_response_malformed_json(anon, survey):
    path = url(survey, "responses/")
    body = json.dumps({"submission_id": new_id(), "randomizer": "browser", "answers": {}})
    for raw in ("{", '"string"', body.replace("{}", '{"hours": NaN}')):
        r = anon.post(path, raw, content_type="application/json")
        assert r.status_code == 400, raw
    assert Submission.objects.count() == 0


# --- estimates ----------------------------------------------------------------------------------


def _some_responses(survey, n=12):
    for i in range(n):
        submit(
            survey,
            full_answers(
                coin=i % 3 == 0, party="abcd"[i % 4], age=["young", "old"][i % 2], hours=float(i)
            ),
        )


def test_estimates_json(api, survey):
    _some_responses(survey)
    r = api.get(url(survey, "estimates/"))
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"survey", "respondents", "confidence", "epsilon_local_total", "questions"}
    coin = body["questions"][0]
    assert set(coin) >= {
        "key",
        "kind",
        "epsilon",
        "design",
        "n",
        "reported_yes",
        "reported_yes_rate",
        "estimate",
        "estimate_unclipped",
        "std_error",
        "ci_low",
        "ci_high",
    }
    assert coin["n"] == 12 and coin["reported_yes"] == 4
    party = body["questions"][2]
    assert set(party["options"][0]) >= {
        "option",
        "reported",
        "reported_rate",
        "estimate",
        "estimate_unclipped",
        "std_error",
        "ci_low",
        "ci_high",
    }
    assert body == api.get(url(survey, "estimates/?confidence=0.95")).json()
    grouped = api.get(url(survey, "estimates/?group_by=age&confidence=0.8")).json()
    assert grouped["confidence"] == 0.8
    assert [g["group"] for g in grouped["groups"]] == ["young", "old"]
    assert grouped["groups"][0]["respondents"] == 6


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("confidence=1", "confidence"),
        ("confidence=0", "confidence"),
        ("confidence=abc", "confidence"),
        ("confidence=NaN", "confidence"),
        ("group_by=coin", "group_by"),
        ("group_by=unknown", "group_by"),
        ("format=xml", "format"),
    ],
)
def test_estimates_400(api, survey, query, field):
    r = api.get(url(survey, f"estimates/?{query}"))
    assert r.status_code == 400
    assert field in r.json()["errors"]


def test_estimates_csv(api, survey):
    _some_responses(survey)
    r = api.get(url(survey, "estimates/?format=csv&group_by=age"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    raw = list(csv.DictReader(io.StringIO(r.content.decode())))
    text_columns = {"survey", "group_by", "group", "key", "kind", "option", "design"}
    # Every non-empty text cell is "'" + the text (csv_cells); numbers are bare.
    assert all(row[k].startswith("'") for row in raw for k in text_columns if row[k])
    assert all(not row["estimate"].startswith("'") for row in raw)
    rows = [{k: v[1:] if k in text_columns and v else v for k, v in row.items()} for row in raw]
    coin = [row for row in rows if row["key"] == "coin"]
    assert len(coin) == 3  # overall + 2 groups
    overall = next(row for row in coin if row["group"] == "")
    assert (
        float(overall["estimate"])
        == api.get(url(survey, "estimates/")).json()["questions"][0]["estimate"]
    )
    party_rows = [row for row in rows if row["key"] == "party" and row["group"] == ""]
    assert [row["option"] for row in party_rows] == ["a", "b", "c", "d"]
    assert {"estimate", "std_error", "ci_low", "ci_high", "reported_yes_rate"} <= set(rows[0])


# --- export -------------------------------------------------------------------------------------


def _report_multiset(survey) -> Counter:
    rows: Counter = Counter()
    kinds = dict(survey.questions.values_list("key", "kind"))
    for answers in Submission.objects.filter(survey=survey).values_list("answers", flat=True):
        row = dict.fromkeys(["coin", "mirror", "party", "age", "hours"], "")
        for key, value in answers.items():
            if kinds[key] == "yes_no":
                row[key] = str(int(value))
            elif kinds[key] == "number":
                row[key] = repr(float(value))
            else:
                row[key] = value
        rows[tuple(row.values())] += 1
    return rows


def _decoded_export(text: str) -> list[list[str]]:
    """The export CSV read with the csv module, text cells' leading "'" dropped."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    kinds = ["yes_no", "yes_no", "choice", "category", "number"]  # FULL_SURVEY's columns
    for row in rows[1:]:
        for i, kind in enumerate(kinds):
            if kind in ("choice", "category") and row[i]:
                assert row[i].startswith("'"), row
                row[i] = row[i][1:]
            else:
                assert not row[i].startswith("'"), row
    return rows


def test_export_csv(api, survey):
    _some_responses(survey, 30)
    submit(survey, {"coin": True, "mirror": True, "party": "a"})  # skipped optional questions
    r = api.get(url(survey, "responses/export/?format=csv"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert r["Content-Disposition"] == f'attachment; filename="{survey.slug}-reports.csv"'
    text = b"".join(r.streaming_content).decode()
    # A plain CSV: no comment lines (the design metadata moved to export/metadata/).
    assert "#" not in text and text.startswith("coin,mirror,party,age,hours\r\n")
    header, *rows = _decoded_export(text)
    assert header == ["coin", "mirror", "party", "age", "hours"]
    assert Counter(tuple(row) for row in rows) == _report_multiset(survey)
    assert "submission" not in text and "submitted_on" not in text
    assert not any(str(s.pk) in text for s in Submission.objects.all())


def test_export_metadata(api, survey):
    _some_responses(survey, 4)
    r = api.get(url(survey, "responses/export/metadata/"))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["survey"], body["title"], body["respondents"]) == (survey.slug, "Every kind", 4)
    assert body["csv"]["text_prefix"] == "'" and body["csv"]["missing"] == ""
    columns = {c["key"]: c for c in body["columns"]}
    assert [c["key"] for c in body["columns"]] == ["coin", "mirror", "party", "age", "hours"]
    assert {k: c["type"] for k, c in columns.items()} == {
        "coin": "integer",
        "mirror": "integer",
        "party": "text",
        "age": "text",
        "hours": "number",
    }
    coin = columns["coin"]["design"]
    assert (coin["name"], coin["p_truth"], coin["p_yes"], coin["p_no"]) == (
        "forced_response",
        0.5,
        0.25,
        0.25,
    )
    assert (coin["c"], coin["d"]) == (0.5, 0.25)
    assert columns["mirror"]["design"]["p"] == 0.75
    assert columns["coin"]["rrreg"] == (
        'rrreg(coin ~ 1, data = reports, p = 0.5, p0 = 0.25, p1 = 0.25, design = "forced-known")'
    )
    assert columns["mirror"]["rrreg"].endswith('p = 0.75, design = "mirrored")')
    assert columns["party"]["options"] == ["a", "b", "c", "d"]
    assert columns["party"]["design"]["k"] == 4 and "rrreg" not in columns["party"]
    assert (columns["hours"]["min"], columns["hours"]["max"]) == (0.0, 80.0)
    assert "design" not in columns["age"] and "design" not in columns["hours"]


def test_export_is_shuffled(api, survey):
    for i in range(40):
        submit(survey, full_answers(hours=float(i)))
    orders = set()
    for _ in range(3):
        text = b"".join(api.get(url(survey, "responses/export/")).streaming_content).decode()
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        orders.add(tuple(row["hours"] for row in rows))
        assert sorted(float(row["hours"]) for row in rows) == [float(i) for i in range(40)]
    assert len(orders) > 1 or orders != {tuple(repr(float(i)) for i in range(40))}


def test_export_json(api, survey):
    _some_responses(survey, 5)
    r = api.get(url(survey, "responses/export/?format=json"))
    assert r.status_code == 200
    body = json.loads(b"".join(r.streaming_content))
    assert body["survey"] == survey.slug
    assert body["designs"]["coin"]["design"]["p_truth"] == 0.5
    assert body["designs"]["hours"] == {"kind": "number", "text": "Hours", "min": 0.0, "max": 80.0}
    assert len(body["rows"]) == 5 and set(body["rows"][0]) == {
        "coin",
        "mirror",
        "party",
        "age",
        "hours",
    }
    assert api.get(url(survey, "responses/export/?format=xml")).status_code == 400


def test_export_empty(api, survey):
    text = b"".join(api.get(url(survey, "responses/export/")).streaming_content).decode()
    assert text == "coin,mirror,party,age,hours\r\n"
    body = json.loads(
        b"".join(api.get(url(survey, "responses/export/?format=json")).streaming_content)
    )
    assert body["rows"] == []


# --- design preview -----------------------------------------------------------------------------


def test_design_preview(api):
    r = api.post(f"{API}/designs/preview/", {"kind": "yes_no", "planned_n": 400}, format="json")
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["epsilon"] == pytest.approx(math.log(3)) and body["private"] is True
    assert body["deniability"] == pytest.approx(0.25)
    expected_half_width = 1.959963984540054 * math.sqrt(0.25 / 400) / 0.5
    assert body["planned_half_width"] == pytest.approx(expected_half_width)
    assert body["sample_size_for_5pp"] == 4 * body["sample_size_direct_for_5pp"] - 3 or (
        body["sample_size_for_5pp"] > 3 * body["sample_size_direct_for_5pp"]
    )
    one_sided = api.post(
        f"{API}/designs/preview/",
        {
            "kind": "yes_no",
            "design": {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.5, "p_no": 0},
        },
        format="json",
    ).json()
    assert one_sided["private"] is False and one_sided["epsilon"] is None
    choice = api.post(
        f"{API}/designs/preview/",
        {"kind": "choice", "options": ["a", "b", "c"], "design": {"name": "k_rr", "epsilon": 2}},
        format="json",
    ).json()
    assert choice["epsilon"] == 2 and choice["prior"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "yes_no", "design": {"name": "warner", "p": 2}}, "design.p"),
        ({"kind": "yes_no", "design": {"name": "nope"}}, "design.name"),
        ({"kind": "category"}, "kind"),
        ({"kind": "choice"}, "options"),
        ({"kind": "yes_no", "prior": 2}, "prior"),
        ({"kind": "yes_no", "confidence": 1}, "confidence"),
        ({"kind": "essay"}, "kind"),
    ],
)
def test_design_preview_400(api, body, field):
    r = api.post(f"{API}/designs/preview/", body, format="json")
    assert r.status_code == 400
    assert field in r.json()["errors"], r.json()


# --- permissions: another researcher's survey is a 404 everywhere -------------------------------


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"title": "mine now"}),
        ("post", "open/", None),
        ("post", "close/", None),
        ("post", "invitations/", {"count": 1}),
        ("get", "estimates/", None),
        ("get", "estimates/?format=csv", None),
        ("get", "estimates/?group_by=age", None),
        ("get", "responses/export/?format=csv", None),
        ("get", "responses/export/?format=json", None),
        ("get", "responses/export/metadata/", None),
        ("get", "invitations/", None),
        ("post", "invitations/", {"count": 1, "format": "csv"}),
        ("post", "invitations/revoke/", {}),
    ],
)
@pytest.mark.parametrize("state", ["draft", "open"])
def test_other_researchers_get_404(bob_api, alice, method, suffix, body, state):
    survey = factories.survey_create(owner=alice, data=survey_body(access="invite"))
    if state == "open":
        services.survey_open(survey=survey)
        submit(survey, token=factories.invitations_create(survey=survey, count=1)[0])
    before = (survey.title, sorted(Invitation.objects.values_list("used", "revoked")))
    call = getattr(bob_api, method)
    r = (
        call(url(survey, suffix), body, format="json")
        if body is not None
        else call(url(survey, suffix))
    )
    assert r.status_code == 404, (suffix, r.status_code)
    assert r.json() == {"error": "not_found", "detail": "No such survey."}
    survey.refresh_from_db()
    after = (survey.title, sorted(Invitation.objects.values_list("used", "revoked")))
    assert survey.status == state and after == before
    assert bob_api.get(f"{API}/surveys/").json() == []


# --- OpenAPI ------------------------------------------------------------------------------------


def test_openapi_schema_is_valid_without_warnings(tmp_path):
    """The surveys API alone: valid OpenAPI 3 and not a single warning."""
    target = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(target),
        "--urlconf",
        "tests.surveys.schema_urls",
    )
    text = target.read_text()
    for path in (
        "/api/v1/surveys/{slug}/responses/",
        "/api/v1/surveys/{slug}/estimates/",
        "/api/v1/surveys/{slug}/responses/export/",
        "/api/v1/surveys/{slug}/responses/export/metadata/",
        "/api/v1/surveys/{slug}/invitations/revoke/",
        "/api/v1/auth/token/",
        "/api/v1/designs/preview/",
        "/api/v1/surveys/{slug}/invitations/",
    ):
        assert path in text


def test_whole_project_schema_is_valid_without_warnings(tmp_path):
    """Every app's endpoints together: valid OpenAPI 3 and not a single warning (the release
    ``status``/``mechanism`` enums are named in ``SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]``)."""
    target = tmp_path / "all.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    text = target.read_text()
    for path in (
        "/api/v1/surveys/{slug}/releases/",
        "/api/v1/surveys/{slug}/releases/preview/",
        "/api/v1/surveys/{slug}/budget/",
        "/api/v1/releases/{release_id}/",
        "/api/v1/surveys/{slug}/estimates/",
    ):
        assert path in text
    for enum in ("ReleaseStatusEnum:", "ReleaseMechanismEnum:", "SurveyStatusEnum:"):
        assert enum in text


def test_schema_endpoint(api):
    r = api.get(f"{API}/schema/")
    assert r.status_code == 200
