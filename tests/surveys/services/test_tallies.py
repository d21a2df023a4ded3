"""Counter vectors against a recount: many random submissions through ``submission_create``,
then ``survey_counts`` (ungrouped and grouped by each category) must equal a direct recount from
the answers that were sent; ``tallies_rebuild`` must not change them; and every storage path
(PostgreSQL's one-statement path for open surveys, the general path for invite-only and capped
surveys, SQLite's) must count the same answers the same way.

Runs on whichever database DATABASE_URL names (SQLite without it).
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any
from unittest import mock

import numpy as np
import pytest
from django.db import connection

from deniable.errors import Conflict
from surveys import selectors
from surveys.models import TALLY_SHARDS, Submission, Survey, Tally
from surveys.services import submissions as submissions_module
from surveys.services.tallies import tallies_rebuild
from testsupport import factories

pytestmark = pytest.mark.django_db

QUESTIONS: list[dict[str, Any]] = [
    {"key": "coin", "text": "Coin?", "kind": "yes_no"},
    {"key": "party", "text": "Party?", "kind": "choice", "options": ["a", "b", "c", "d"]},
    {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "mid", "old"]},
    {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
    {"key": "mirror", "text": "Mirror?", "kind": "yes_no", "design": {"name": "warner", "p": 0.75}},
    {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south"]},
    {"key": "balance", "text": "Balance", "kind": "number", "min": -1e6, "max": 1e6},
]
for _q in QUESTIONS:  # the direct ones are optional: the recount tests leave them out at times
    if _q["kind"] in ("category", "number"):
        _q["required"] = False
CATEGORIES = {"age": ["young", "mid", "old"], "region": ["north", "south"]}
CELLS = {
    "coin": ["yes", "no"],
    "party": ["a", "b", "c", "d"],
    **CATEGORIES,
    "mirror": ["yes", "no"],
    "hours": [""],
    "balance": [""],
}
NUMBERS = ("hours", "balance")


def _survey(owner, **extra: Any) -> Survey:
    survey = factories.make_survey(owner, {"title": "T", "questions": QUESTIONS, **extra})
    survey.refresh_from_db()
    return survey


def _random_answers(rng: np.random.Generator, *, dyadic: bool = False) -> dict[str, Any]:
    """Randomized questions always answered; categories and numbers skipped now and then.
    ``dyadic`` numbers (multiples of 1/4) add up exactly in any order."""
    answers: dict[str, Any] = {
        "coin": bool(rng.random() < 0.4),
        "party": str(rng.choice(CELLS["party"])),
        "mirror": bool(rng.random() < 0.7),
    }
    for key, options in CATEGORIES.items():
        if rng.random() < 0.75:
            answers[key] = str(rng.choice(options))
    if rng.random() < 0.8:
        hours = int(rng.integers(0, 321)) / 4 if dyadic else round(float(rng.uniform(0, 80)), 2)
        answers["hours"] = hours
    if rng.random() < 0.6:
        balance = int(rng.integers(-4000, 4001)) / 4 if dyadic else float(rng.uniform(-1e6, 1e6))
        answers["balance"] = balance
    return answers


def _submit_all(survey: Survey, answers_list: list[dict[str, Any]], tokens=None) -> None:
    for i, answers in enumerate(answers_list):
        outcome = factories.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer=("browser", "physical")[i % 2],
            answers=answers,
            token=None if tokens is None else tokens[i],
        )
        assert outcome.status == "accepted"


def _canonical(answers: dict[str, Any]) -> str:
    return json.dumps(answers, sort_keys=True)


def _recount(answers_list: list[dict[str, Any]], group_by: str | None) -> dict[str, Any]:
    """What ``survey_counts`` must say, counted straight from the answers sent."""
    if group_by is None:
        groups = {"": answers_list}
    else:
        groups = {
            o: [a for a in answers_list if a.get(group_by) == o] for o in CATEGORIES[group_by]
        }
    cells: dict[str, dict[str, dict[str, int]]] = {}
    sums: dict[str, dict[str, tuple[int, float, float]]] = {}
    for group, members in groups.items():
        cells[group] = {
            key: dict.fromkeys(values, 0) for key, values in CELLS.items() if key != group_by
        }
        for answers in members:
            for key, value in answers.items():
                if key == group_by:
                    continue
                if key in NUMBERS:
                    cell = ""
                elif isinstance(value, bool):
                    cell = "yes" if value else "no"
                else:
                    cell = value
                cells[group][key][cell] += 1
        sums[group] = {
            key: (
                sum(key in a for a in members),
                math.fsum(a[key] for a in members if key in a),
                math.fsum(a[key] ** 2 for a in members if key in a),
            )
            for key in NUMBERS
        }
    return {
        "respondents": len(answers_list),
        "group_respondents": {group: len(members) for group, members in groups.items()},
        "cells": cells,
        "sums": sums,
    }


def _counts(survey: Survey, group_by: str | None) -> dict[str, Any]:
    counts = selectors.survey_counts(survey=survey, group_by=group_by)
    assert counts.group_by == group_by
    return {
        "respondents": counts.respondents,
        "group_respondents": counts.group_respondents,
        "cells": counts.cells,
        "sums": {
            group: {key: (s.n, s.total, s.total_sq) for key, s in numbers.items()}
            for group, numbers in counts.sums.items()
        },
    }


def _assert_counts_equal(actual: dict[str, Any], expected: dict[str, Any], rel: float) -> None:
    """Counts exactly equal; number sums within ``rel`` (0: exactly equal)."""
    assert actual["respondents"] == expected["respondents"]
    assert actual["group_respondents"] == expected["group_respondents"]
    assert actual["cells"] == expected["cells"]
    assert actual["sums"].keys() == expected["sums"].keys()
    for group, numbers in expected["sums"].items():
        assert actual["sums"][group].keys() == numbers.keys(), group
        for key, (n, total, total_sq) in numbers.items():
            got_n, got_total, got_sq = actual["sums"][group][key]
            assert got_n == n, (group, key)
            if rel:
                assert got_total == pytest.approx(total, rel=rel, abs=1e-9), (group, key)
                assert got_sq == pytest.approx(total_sq, rel=rel, abs=1e-9), (group, key)
            else:
                assert (got_total, got_sq) == (total, total_sq), (group, key)


GROUPINGS = [None, "age", "region"]


def test_counts_equal_a_recount_and_survive_a_rebuild(alice):
    survey = _survey(alice)
    rng = np.random.default_rng(20240611)
    sent = [_random_answers(rng) for _ in range(400)]
    assert any("age" not in a for a in sent) and any("balance" not in a for a in sent)
    _submit_all(survey, sent)
    assert Submission.objects.filter(survey=survey).count() == len(sent)
    stored = Submission.objects.filter(survey=survey).values_list("answers", flat=True)
    assert sorted(stored, key=_canonical) == sorted(sent, key=_canonical)
    assert selectors.survey_respondent_count(survey=survey) == len(sent)

    expected = {group_by: _recount(sent, group_by) for group_by in GROUPINGS}
    for group_by in GROUPINGS:
        _assert_counts_equal(_counts(survey, group_by), expected[group_by], rel=1e-9)
    slices = set(Tally.objects.filter(survey=survey).values_list("group_key", "group_value"))
    assert slices == {("", "")} | {(k, o) for k, options in CATEGORIES.items() for o in options}

    written = tallies_rebuild(survey=survey)
    assert written == Tally.objects.filter(survey=survey).count()
    assert set(Tally.objects.filter(survey=survey).values_list("group_key", "group_value")) == (
        slices
    )
    assert all(0 <= t.shard < TALLY_SHARDS for t in Tally.objects.filter(survey=survey))
    for group_by in GROUPINGS:
        _assert_counts_equal(_counts(survey, group_by), expected[group_by], rel=1e-9)

    # The hot path keeps adding to the rebuilt vectors.
    more = [_random_answers(rng) for _ in range(40)]
    for answers in more:
        factories.submission_create(
            survey=survey, submission_id=str(uuid.uuid4()), randomizer="browser", answers=answers
        )
    for group_by in GROUPINGS:
        _assert_counts_equal(_counts(survey, group_by), _recount(sent + more, group_by), rel=1e-9)


def test_rebuild_of_an_empty_survey_and_of_another_survey_only(alice):
    empty, other = _survey(alice), _survey(alice)
    rng = np.random.default_rng(5)
    sent = [_random_answers(rng) for _ in range(30)]
    _submit_all(other, sent)

    def rows_of(survey: Survey) -> list[tuple]:
        fields = ("group_key", "group_value", "shard", "sums")
        return sorted(Tally.objects.filter(survey=survey).values_list(*fields))

    before = rows_of(other)
    assert tallies_rebuild(survey=empty) == 0
    assert not Tally.objects.filter(survey=empty).exists()
    assert rows_of(other) == before  # another survey's tallies are untouched
    assert _counts(empty, None)["respondents"] == 0
    # A rebuild after tallies were lost restores them.
    Tally.objects.filter(survey=other).delete()
    assert _counts(other, None)["respondents"] == 0
    tallies_rebuild(survey=other)
    for group_by in GROUPINGS:
        _assert_counts_equal(_counts(other, group_by), _recount(sent, group_by), rel=1e-9)


def test_every_storage_path_counts_the_same(alice):
    """The same answers to an open survey (PostgreSQL: the one-statement path), an invite-only
    and a capped survey (the general path): identical counts. The numbers are multiples of 1/4,
    so their sums are exact whatever the order of addition, and are compared exactly."""
    rng = np.random.default_rng(31337)
    sent = [_random_answers(rng, dyadic=True) for _ in range(120)]
    open_survey = _survey(alice)
    invite_survey = _survey(alice, access="invite")
    capped_survey = _survey(alice, response_cap=len(sent))
    tokens = factories.invitations_create(survey=invite_survey, count=len(sent))

    one_statement = mock.patch.object(
        submissions_module,
        "submission_store_one_statement",
        wraps=submissions_module.submission_store_one_statement,
    )
    general = mock.patch.object(
        submissions_module, "submission_store", wraps=submissions_module.submission_store
    )
    with one_statement as one_statement_calls, general as general_calls:
        _submit_all(open_survey, sent)
        on_postgres = connection.vendor == "postgresql"
        assert one_statement_calls.call_count == (len(sent) if on_postgres else 0)
        assert general_calls.call_count == (0 if on_postgres else len(sent))
        general_calls.reset_mock()
        _submit_all(invite_survey, sent, tokens=tokens)
        _submit_all(capped_survey, sent)
        assert general_calls.call_count == 2 * len(sent)
        assert one_statement_calls.call_count == (len(sent) if on_postgres else 0)

    for group_by in GROUPINGS:
        expected = _recount(sent, group_by)
        for survey in (open_survey, invite_survey, capped_survey):
            _assert_counts_equal(_counts(survey, group_by), expected, rel=0)
    # The capped survey is full: one more is refused and changes nothing.
    with pytest.raises(Conflict) as caught:
        factories.submission_create(
            survey=capped_survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers=sent[0],
        )
    assert caught.value.code == "response_cap_reached"
    assert _counts(capped_survey, None)["respondents"] == len(sent)
    for survey in (open_survey, invite_survey, capped_survey):
        tallies_rebuild(survey=survey)
        for group_by in GROUPINGS:
            _assert_counts_equal(_counts(survey, group_by), _recount(sent, group_by), rel=0)
