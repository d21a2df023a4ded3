"""Survey services (surveys/services/): submissions: stored reports and tallies, refusals that
store nothing, a brute-force recount of the tallies, and what is (not) stored."""

from __future__ import annotations

import uuid
from datetime import timedelta

import numpy as np
import pytest
from django.db import models
from django.utils import timezone

from deniable.errors import Conflict, InvalidInput, NotFound
from surveys import selectors, services
from surveys.models import Invitation, Submission, Tally
from tests.surveys.tally_reading import slice_counts, tally_totals
from testsupport import factories
from testsupport.factories import full_answers, new_id, submit, survey_body

pytestmark = pytest.mark.django_db


def _row_counts() -> tuple[object, ...]:
    """Everything a submission writes: its row, its tally rows and what they add up to."""
    return (
        Submission.objects.count(),
        sorted(Submission.objects.values_list("id", "answers")),
        Tally.objects.count(),
        tally_totals(),
        Invitation.objects.filter(used=True).count(),
    )


def test_accepted_stores_reports_and_tallies(survey):
    outcome = submit(survey)
    assert outcome.status == "accepted" and isinstance(outcome.submission_id, uuid.UUID)
    sub = Submission.objects.get()
    assert sub.submitted_on == timezone.localdate()
    assert sub.answers == {
        "coin": True,
        "mirror": False,
        "party": "b",
        "age": "young",
        "hours": 12.5,
    }
    assert type(sub.answers["hours"]) is float
    # One row per slice: all respondents, and the answered category question's option.
    slices = {(t.group_key, t.group_value) for t in Tally.objects.all()}
    assert slices == {("", ""), ("age", "young")} and Tally.objects.count() == 2
    assert len({t.shard for t in Tally.objects.all()}) == 1
    expected_cells = {
        ("coin", "yes"): 1,
        ("coin", "no"): 0,
        ("mirror", "yes"): 0,
        ("mirror", "no"): 1,
        ("party", "a"): 0,
        ("party", "b"): 1,
        ("party", "c"): 0,
        ("party", "d"): 0,
        ("age", "young"): 1,
        ("age", "old"): 0,
        ("hours", ""): 1,
    }
    for group in (("", ""), ("age", "young")):
        counts = slice_counts(survey, *group)
        assert counts["respondents"] == 1
        assert counts["cells"] == expected_cells
        assert counts["numbers"] == {"hours": (1.0, 12.5, 156.25)}
    assert slice_counts(survey, "age", "old")["respondents"] == 0


def test_optional_questions_may_be_skipped(survey):
    submit(survey, {"coin": False, "mirror": True, "party": "a", "age": None})
    assert Submission.objects.get().answers == {"coin": False, "mirror": True, "party": "a"}
    assert not Tally.objects.filter(group_key="age").exists()
    counts = slice_counts(survey)
    assert counts["respondents"] == 1
    assert counts["cells"][("age", "young")] == counts["cells"][("age", "old")] == 0
    assert counts["numbers"]["hours"] == (0.0, 0.0, 0.0)


def test_duplicate_and_conflict(survey):
    sid = new_id()
    assert submit(survey, submission_id=sid).status == "accepted"
    before = _row_counts()
    assert submit(survey, submission_id=sid).status == "duplicate"
    assert submit(survey, submission_id=uuid.UUID(sid)).status == "duplicate"
    with pytest.raises(Conflict) as caught:
        submit(survey, full_answers(coin=False), submission_id=sid)
    assert caught.value.code == "duplicate_conflict"
    with pytest.raises(Conflict):
        submit(survey, submission_id=sid, randomizer="physical")
    assert _row_counts() == before


def test_duplicate_answered_after_close(survey):
    sid = new_id()
    submit(survey, submission_id=sid)
    services.survey_close(survey=survey)
    survey.refresh_from_db()
    assert submit(survey, submission_id=sid).status == "duplicate"
    with pytest.raises(Conflict) as caught:
        submit(survey)
    assert caught.value.code == "survey_closed"


def test_close_date(survey):
    survey.closes_at = timezone.now() - timedelta(seconds=1)
    survey.save()
    with pytest.raises(Conflict) as caught:
        submit(survey)
    assert caught.value.code == "survey_closed"


def test_draft_is_not_found(draft):
    with pytest.raises(NotFound):
        submit(draft)


def test_response_cap(survey):
    survey.response_cap = 2
    survey.save()
    submit(survey)
    submit(survey)
    before = _row_counts()
    with pytest.raises(Conflict) as caught:
        submit(survey)
    assert caught.value.code == "response_cap_reached"
    assert _row_counts() == before


def test_invitation_tokens(invite_survey):
    (token,) = factories.invitations_create(survey=invite_survey, count=1)
    with pytest.raises(Conflict) as caught:
        submit(invite_survey)
    assert caught.value.code == "token_required"
    with pytest.raises(InvalidInput) as bad:
        submit(invite_survey, token="not-a-token")
    assert "token" in bad.value.errors
    sid = new_id()
    assert submit(invite_survey, token=token, submission_id=sid).status == "accepted"
    assert Invitation.objects.get().used is True
    assert submit(invite_survey, token=token, submission_id=sid).status == "duplicate"
    before = _row_counts()
    with pytest.raises(Conflict) as used:
        submit(invite_survey, token=token)
    assert used.value.code == "token_used"
    assert _row_counts() == before


def test_token_of_another_survey_is_rejected(alice, invite_survey):
    other = factories.survey_create(owner=alice, data=survey_body(access="invite"))
    services.survey_open(survey=other)
    (token,) = factories.invitations_create(survey=other, count=1)
    with pytest.raises(InvalidInput):
        submit(invite_survey, token=token)
    assert not Invitation.objects.filter(used=True).exists()


BAD_SUBMISSIONS = [
    ({"submission_id": "not-a-uuid"}, "submission_id"),
    ({"submission_id": "00000000-0000-1000-8000-000000000000"}, "submission_id"),  # v1
    ({"submission_id": 42}, "submission_id"),
    ({"submission_id": None}, "submission_id"),
    ({"randomizer": "server"}, "randomizer"),
    ({"randomizer": None}, "randomizer"),
    ({"answers": []}, "answers"),
    ({"answers": "yes"}, "answers"),
    ({"answers": full_answers(coin="yes")}, "answers.coin"),
    ({"answers": full_answers(coin=1)}, "answers.coin"),
    ({"answers": full_answers(coin=None)}, "answers.coin"),
    ({"answers": {k: v for k, v in full_answers().items() if k != "mirror"}}, "answers.mirror"),
    ({"answers": full_answers(party="z")}, "answers.party"),
    ({"answers": full_answers(party=["a"])}, "answers.party"),
    ({"answers": full_answers(party=None)}, "answers.party"),
    ({"answers": full_answers(age="middle")}, "answers.age"),
    ({"answers": full_answers(hours=81)}, "answers.hours"),
    ({"answers": full_answers(hours=-0.5)}, "answers.hours"),
    ({"answers": full_answers(hours=float("nan"))}, "answers.hours"),
    ({"answers": full_answers(hours=float("inf"))}, "answers.hours"),
    ({"answers": full_answers(hours="10")}, "answers.hours"),
    ({"answers": full_answers(hours=True)}, "answers.hours"),
    ({"answers": full_answers(extra=True)}, "answers.extra"),
    ({"token": 5}, "token"),
]


@pytest.mark.parametrize(("overrides", "field"), BAD_SUBMISSIONS)
def test_rejected_submission_stores_nothing(survey, overrides, field):
    submit(survey)  # some data already there
    before = _row_counts()
    kwargs = {"submission_id": new_id(), "randomizer": "browser", "answers": full_answers()}
    kwargs.update(overrides)
    with pytest.raises(InvalidInput) as caught:
        factories.submission_create(survey=survey, **kwargs)
    assert field in caught.value.errors, caught.value.errors
    assert _row_counts() == before


def test_rejected_conflicts_store_nothing(survey, invite_survey):
    submit(survey)
    factories.invitations_create(survey=invite_survey, count=2)
    before = _row_counts()
    survey.status = "closed"
    survey.save()
    for s, kwargs in ((survey, {}), (invite_survey, {}), (invite_survey, {"token": "bogus"})):
        with pytest.raises((Conflict, InvalidInput)):
            submit(s, **kwargs)
    assert _row_counts() == before


def _expected_slice(answers_list: list[dict]) -> dict:
    """What ``slice_counts`` must read for the submissions with these answers (FULL_SURVEY)."""
    cells = {(k, v): 0.0 for k in ("coin", "mirror") for v in ("yes", "no")}
    cells |= {("party", v): 0.0 for v in "abcd"} | {("age", "young"): 0.0, ("age", "old"): 0.0}
    cells[("hours", "")] = 0.0
    n = total = total_sq = 0.0
    for answers in answers_list:
        for key, value in answers.items():
            if key == "hours":
                n, total, total_sq = n + 1, total + value, total_sq + value * value
                cells[("hours", "")] += 1
            elif isinstance(value, bool):
                cells[(key, "yes" if value else "no")] += 1
            else:
                cells[(key, value)] += 1
    return {
        "respondents": float(len(answers_list)),
        "cells": cells,
        "numbers": {"hours": (n, total, total_sq)},
    }


def test_tallies_match_a_brute_force_recount(survey):
    rng = np.random.default_rng(1234)
    sent: dict[uuid.UUID, dict] = {}
    for _ in range(150):
        answers = {
            "coin": bool(rng.random() < 0.4),
            "mirror": bool(rng.random() < 0.7),
            "party": str(rng.choice(list("abcd"))),
        }
        if rng.random() < 0.8:
            answers["age"] = str(rng.choice(["young", "old"]))
        if rng.random() < 0.8:
            answers["hours"] = round(float(rng.uniform(0, 80)), 2)
        outcome = submit(survey, answers, randomizer=str(rng.choice(["browser", "physical"])))
        sent[outcome.submission_id] = answers

    assert dict(Submission.objects.values_list("id", "answers")) == sent
    groups = {
        ("", ""): list(sent.values()),
        ("age", "young"): [a for a in sent.values() if a.get("age") == "young"],
        ("age", "old"): [a for a in sent.values() if a.get("age") == "old"],
    }
    assert {(t.group_key, t.group_value) for t in Tally.objects.all()} == set(groups)
    for group, answers_list in groups.items():
        actual, expected = slice_counts(survey, *group), _expected_slice(answers_list)
        assert actual["respondents"] == expected["respondents"], group
        assert actual["cells"] == expected["cells"], group
        for got, want in zip(actual["numbers"]["hours"], expected["numbers"]["hours"], strict=True):
            assert got == pytest.approx(want, rel=1e-12, abs=1e-9), group
    assert selectors.survey_respondent_count(survey=survey) == 150


# --- what is (not) stored -----------------------------------------------------------------------


def test_response_rows_carry_no_client_metadata():
    forbidden = ("ip", "addr", "agent", "ua", "time", "timestamp", "host", "user", "seq")
    for model in (Submission, Tally, Invitation):
        for f in model._meta.get_fields():
            if f.is_relation and f.auto_created:
                continue
            name = f.name.lower()
            parts = name.split("_")
            assert not any(bad == name or bad in parts for bad in forbidden), (model, name)
            assert not isinstance(f, models.DateTimeField | models.TimeField), (model, name)
            assert not isinstance(f, models.GenericIPAddressField), (model, name)
    assert {f.name for f in Submission._meta.concrete_fields} == {
        "id",
        "survey",
        "randomizer",
        "submitted_on",
        "fingerprint",
        "answers",
        "sealed",  # published in a batch or not (issue 11: surveys.services.batches)
    }
    assert isinstance(Submission._meta.get_field("id"), models.UUIDField)
    # Invitations are not linked to submissions.
    assert not any(f.related_model is Submission for f in Invitation._meta.get_fields())
