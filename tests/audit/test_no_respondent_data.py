"""Attack: make the audit log say something about respondents (docs/accounts.md#audit).

Respondents answer through every path there is — the JavaScript API with and without an
invitation (good, wrong and reused tokens), the no-JavaScript form, the invitation check — while
their researcher is signed in on the same client, their batches are published and the survey is
closed. The log must gain no entry from any of it, and no entry may hold a submission id, a
token, an answer or a respondent's request data; the table has no column that could.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from audit.models import Entry
from surveys.models import Submission
from surveys.services.batches import submissions_publish
from tests.security.support import physical_post
from testsupport.factories import (
    invitations_create,
    make_physical_survey,
    make_user,
    new_id,
    physical_answers,
)

pytestmark = pytest.mark.django_db

UA = "UA-canary-respondent"
IP = "203.0.113.77"


def _respond_everywhere(client: Client, survey, invite, token: str) -> list[str]:
    """Every respondent path once (twice for the token); returns the submission ids posted."""
    ids = []
    client.get(reverse("respond", args=[survey.slug]))
    client.post(reverse("respond-submit", args=[survey.slug]), physical_post(**{"q-hours": "17"}))
    client.get(reverse("respond-thanks", args=[survey.slug]))
    client.post(
        f"/api/v1/surveys/{invite.slug}/invitations/check/",
        {"token": token},
        content_type="application/json",
    )
    for tok in ("wrong-token", token, token):  # bad, good, reused
        ids.append(new_id())
        body = {"submission_id": ids[-1], "randomizer": "browser", "token": tok}
        body["answers"] = physical_answers(hours=41)
        client.post(
            f"/api/v1/surveys/{invite.slug}/responses/", body, content_type="application/json"
        )
    ids.append(new_id())
    body = {"submission_id": ids[-1], "randomizer": "physical", "answers": physical_answers()}
    client.post(f"/api/v1/surveys/{survey.slug}/responses/", body, content_type="application/json")
    return ids


def test_no_respondent_act_reaches_the_audit_log():
    alice = make_user("alice")
    survey = make_physical_survey(alice, title="Open one")
    invite = make_physical_survey(alice, title="Invite one", access="invite")
    token = invitations_create(survey=invite, count=1)[0]
    before = list(Entry.objects.values_list("id", flat=True))

    # The researcher is signed in on the respondent's client: a request's user is never
    # a reason to record a respondent's act.
    client = Client(REMOTE_ADDR=IP, HTTP_USER_AGENT=UA)
    client.force_login(alice)
    ids = _respond_everywhere(client, survey, invite, token)
    anonymous = _respond_everywhere(Client(REMOTE_ADDR=IP, HTTP_USER_AGENT=UA), survey, invite, "")
    assert Submission.objects.filter(survey__in=[survey, invite]).count() >= 4  # they got in
    submissions_publish(survey=survey, force=True)
    submissions_publish(survey=invite, force=True)
    assert list(Entry.objects.values_list("id", flat=True)) == before

    # Closing re-writes the unpublished tail: recorded as the researcher's act, with no detail.
    client.post(f"/api/v1/surveys/{survey.slug}/close/")
    new = list(Entry.objects.exclude(id__in=before))
    assert [(e.action, e.actor, e.detail) for e in new] == [("survey.close", "alice", {})]

    stored = json.dumps(list(Entry.objects.values()), default=str)
    for secret in [token, UA, IP, *ids, *anonymous]:
        assert secret not in stored


def test_the_table_has_no_column_for_a_respondent():
    columns = {f.name for f in Entry._meta.get_fields()}
    assert columns == {
        "id", "at", "actor_pk", "actor", "action", "survey_pk", "survey_slug", "detail"
    }  # fmt: skip
    assert not [f for f in Entry._meta.get_fields() if f.is_relation]  # no FK to follow
