"""Issue 21, item 13: junk must not spend a survey's submission allowance.

The attack: the per-survey limit was charged before validation, so anyone could post tokenless
(or malformed) junk to an invite-only survey until its window was spent, and the real invitees
got 429. Now only a post that could be stored — a valid body and, for an invite-only survey, a
token of it that is still unused — counts against the survey's allowance; everything else
counts against the sender's own junk allowance (``DENIABLE_JUNK_RATE_LIMIT`` per window), on the
API and on the no-JavaScript form alike.
"""

from __future__ import annotations

import time as time_module

import pytest
from django.test import Client

from surveys.collection import ratelimit
from surveys.models import Submission
from testsupport import factories
from testsupport.factories import full_answers, new_id, survey_body

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("fresh_limiter"),
    pytest.mark.usefixtures("one_window"),
]


@pytest.fixture
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every post of the test in one fixed window: a minute boundary mid-test would reset the
    counters and hide (or fake) a 429."""

    class Clock:
        time = staticmethod(lambda: 6_000_030.0)  # mid-window of 60 s
        monotonic = staticmethod(time_module.monotonic)

    monkeypatch.setattr(ratelimit, "time", Clock)


def _post(client, survey, **body):
    body.setdefault("submission_id", new_id())
    body.setdefault("randomizer", "browser")
    body.setdefault("answers", full_answers())
    return client.post(
        f"/api/v1/surveys/{survey.slug}/responses/", body, content_type="application/json"
    )


def _invite_survey(alice):
    s = factories.make_survey(alice, survey_body(access="invite"))
    s.refresh_from_db()
    return s


def test_tokenless_junk_does_not_lock_out_real_invitees(alice, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 3
    settings.DENIABLE_JUNK_RATE_LIMIT = 5
    survey = _invite_survey(alice)
    tokens = factories.invitations_create(survey=survey, count=3)
    junk = Client(REMOTE_ADDR="203.0.113.7")
    codes = [_post(junk, survey).status_code for _ in range(4)]  # no token
    codes += [_post(junk, survey, token="not-a-token").status_code for _ in range(2)]
    codes += [_post(junk, survey, answers={"coin": "maybe"}).status_code for _ in range(2)]
    # The junk sender meets their own limit (5), whatever the junk...
    assert codes[:4] == [409] * 4 and codes[4] in (400, 409)
    assert set(codes[5:]) == {429}
    # ...another sender's junk has its own allowance...
    assert _post(Client(REMOTE_ADDR="198.51.100.9"), survey).status_code == 409
    # ...and the survey's allowance is untouched: every invitee gets in.
    invitee = Client(REMOTE_ADDR="192.0.2.1")
    assert [_post(invitee, survey, token=t).status_code for t in tokens] == [201] * 3
    # What could be stored still meets the survey's limit.
    more = factories.invitations_create(survey=survey, count=1)
    assert _post(invitee, survey, token=more[0]).status_code == 429
    assert Submission.objects.filter(survey=survey).count() == 3


def test_invalid_answers_on_an_open_survey_do_not_spend_its_allowance(alice, survey, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 2
    settings.DENIABLE_JUNK_RATE_LIMIT = 3
    junk = Client(REMOTE_ADDR="203.0.113.7")
    bad = [_post(junk, survey, answers={"coin": "maybe"}).status_code for _ in range(5)]
    assert bad == [400, 400, 400, 429, 429]
    good = Client(REMOTE_ADDR="192.0.2.1")
    assert [_post(good, survey).status_code for _ in range(3)] == [201, 201, 429]


def test_no_js_junk_does_not_lock_out_real_invitees(alice, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 2
    settings.DENIABLE_JUNK_RATE_LIMIT = 3
    survey = factories.make_physical_survey(alice, title="No JS", access="invite")
    tokens = factories.invitations_create(survey=survey, count=2)
    url = f"/s/{survey.slug}/submit/"
    form = {"q-cheated": "yes", "q-region": "North", "q-hours": "34"}
    junk = Client(REMOTE_ADDR="203.0.113.7")
    codes = [junk.post(url, {}).status_code for _ in range(2)]  # nothing at all
    codes += [junk.post(url, {**form, "token": "not-a-token"}).status_code for _ in range(2)]
    assert codes[:3] == [400, 400, 400] and codes[3] == 429
    invitee = Client(REMOTE_ADDR="192.0.2.1")
    for token in tokens:
        r = invitee.post(url, {**form, "token": token})
        assert r.status_code == 302, r.content[:500]
    assert Submission.objects.filter(survey=survey).count() == 2


def test_made_up_tokens_do_not_lock_invitees_out_of_the_check(alice, settings):
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 2
    settings.DENIABLE_JUNK_RATE_LIMIT = 3
    survey = _invite_survey(alice)
    tokens = factories.invitations_create(survey=survey, count=3)
    url = f"/api/v1/surveys/{survey.slug}/invitations/check/"
    junk = Client(REMOTE_ADDR="203.0.113.7")
    codes = [
        junk.post(url, {"token": f"guess-{i}"}, content_type="application/json").status_code
        for i in range(5)
    ]
    assert codes == [200, 200, 200, 429, 429]
    invitee = Client(REMOTE_ADDR="192.0.2.1")
    answers = [invitee.post(url, {"token": t}, content_type="application/json") for t in tokens]
    assert [(r.status_code, r.json().get("valid")) for r in answers[:2]] == [(200, True)] * 2
    assert answers[2].status_code == 429  # usable tokens still meet the survey's own limit
