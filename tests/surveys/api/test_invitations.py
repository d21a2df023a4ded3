"""API v1 (docs/api.md): create, list, export and revoke invitations."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Invitation, Submission
from tests.surveys.api.support import post_response, url
from testsupport import factories
from testsupport.factories import survey_body

pytestmark = pytest.mark.django_db


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
    lines = r.content.decode().split("\r\n")
    # A header, then one link per line, each "'" + the link (deniable.csv_cells), CRLF-ended.
    assert lines[0] == "link" and lines[-1] == "" and len(lines) == 5
    assert all(line.startswith("'") for line in lines[1:-1])
    links = [line[1:] for line in lines[1:-1]]
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
    """Privacy: the invitations table keeps a digest and three flags per token, nothing that
    could join it to a submission (no foreign key, no time of use). ``sealed``: the use was
    published with a batch (issue 21 items 3–4, issue 29; it joins a use to its batch only, see
    SECURITY.md), so it flips by whole batches only."""
    fields = {f.name for f in Invitation._meta.get_fields()}
    assert fields == {"id", "survey", "digest", "used", "revoked", "created_on", "sealed"}
    assert not any(
        f.is_relation and f.related_model is Submission for f in Invitation._meta.get_fields()
    )
