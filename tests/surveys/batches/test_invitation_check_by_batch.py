"""Issue 21, item 3: the public invitation check must not tell a researcher which invitee just
answered (DESIGN §8.5).

The attack: the researcher holds every token, polls ``POST …/invitations/check/`` (no login) and
sees a named invitee's token turn ``valid: false`` the moment they answer; they then fill the
batch with k−1 submissions of their own and read that invitee's report from the change in the
estimates. So the check answers ``valid: true`` for a token whose use is not yet published, and
only the batch that publishes it turns it false. A revoke must not reveal it either: after
revoking, the unpublished uses answer like the revoked tokens.
"""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from surveys.models import Survey
from testsupport import factories
from testsupport.factories import full_answers, new_id, survey_body

K = 4
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _invite(owner) -> Survey:
    s = factories.make_survey(owner, survey_body(access="invite"))
    s.refresh_from_db()
    return s


def _respond(anon, survey: Survey, token: str) -> None:
    body = {
        "submission_id": new_id(),
        "randomizer": "browser",
        "answers": full_answers(),
        "token": token,
    }
    r = anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")
    assert r.status_code == 201, r.content


def _valid(anon, survey: Survey, token: str) -> bool:
    url = reverse("api-survey-invitations-check", args=[survey.slug])
    r = anon.post(url, {"token": token}, format="json")
    assert r.status_code == 200, r.content
    return bool(r.json()["valid"])


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_the_check_does_not_reveal_a_use_before_its_batch_is_published(anon, alice) -> None:
    survey = _invite(alice)
    tokens = factories.invitations_create(survey=survey, count=2 * K)
    invitee, others = tokens[0], tokens[1:K]
    _respond(anon, survey, invitee)
    # The researcher polls: the named invitee's token must look exactly like an unused one.
    assert _valid(anon, survey, invitee) is True
    assert [_valid(anon, survey, t) for t in tokens] == [True] * len(tokens)
    for token in others[:-1]:
        _respond(anon, survey, token)
        assert [_valid(anon, survey, t) for t in tokens] == [True] * len(tokens)
    _respond(anon, survey, others[-1])  # the k-th: the batch is published
    assert [_valid(anon, survey, t) for t in tokens] == [False] * K + [True] * K
    # The token itself is still spent: a second use is refused whatever the check said.
    body = {
        "submission_id": new_id(),
        "randomizer": "browser",
        "answers": full_answers(),
        "token": tokens[K],
    }
    _respond(anon, survey, tokens[K])
    assert _valid(anon, survey, tokens[K]) is True
    body["submission_id"] = new_id()
    r = anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")
    assert r.status_code == 409 and r.json()["error"] == "token_used"


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_revoking_does_not_single_out_the_unpublished_uses(anon, api, alice) -> None:
    survey = _invite(alice)
    tokens = factories.invitations_create(survey=survey, count=K + 2)
    _respond(anon, survey, tokens[0])
    _respond(anon, survey, tokens[1])
    r = api.post(f"/api/v1/surveys/{survey.slug}/invitations/revoke/", {}, format="json")
    assert r.status_code == 200, r.content
    # Every token not published as used is reported revoked, the two waiting uses included...
    assert r.json()["revoked"] == K + 2
    assert r.json()["counts"] == {"issued": K + 2, "used": 0, "revoked": K + 2, "remaining": 0}
    # ...and the check answers the same for all of them.
    assert [_valid(anon, survey, t) for t in tokens] == [False] * (K + 2)
    # New invitations after the revoke: once the batch holding the two waiting uses is
    # published, they are counted as used.
    fresh = factories.invitations_create(survey=survey, count=K)
    for token in fresh[: K - 2]:
        _respond(anon, survey, token)
    counts = api.get(f"/api/v1/surveys/{survey.slug}/invitations/").json()
    assert counts["used"] == K
    assert counts["issued"] == 2 * K + 2
    assert counts["used"] + counts["revoked"] + counts["remaining"] == counts["issued"]
