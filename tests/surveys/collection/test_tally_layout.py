"""The tally vector's slot layout (surveys.collection.tally_layout): pure, no database."""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from surveys.collection.tally_layout import (
    ALL_RESPONDENTS,
    RESPONDENTS_SLOT,
    submission_slices,
    submission_vector,
    tally_layout,
    tally_recount,
    vector_add,
)


def q(key: str, kind: str, options: Any = ()) -> SimpleNamespace:
    return SimpleNamespace(key=key, kind=kind, options=list(options))


QUESTIONS = [
    q("coin", "yes_no"),
    q("party", "choice", ["a", "b", "c"]),
    q("age", "category", ["young", "old"]),
    q("hours", "number"),
    q("region", "category", ["north", "south", "east"]),
    q("mirror", "yes_no"),
    q("income", "number"),
]
LAYOUT = tally_layout(QUESTIONS)


def test_slots_in_question_order():
    assert RESPONDENTS_SLOT == 0
    assert dict(LAYOUT.cells) == {
        ("coin", "yes"): 1,
        ("coin", "no"): 2,
        ("party", "a"): 3,
        ("party", "b"): 4,
        ("party", "c"): 5,
        ("age", "young"): 6,
        ("age", "old"): 7,
        ("hours", ""): 8,  # count; sum at 9, sum of squares at 10
        ("region", "north"): 11,
        ("region", "south"): 12,
        ("region", "east"): 13,
        ("mirror", "yes"): 14,
        ("mirror", "no"): 15,
        ("income", ""): 16,
    }
    assert dict(LAYOUT.numbers) == {"hours": 8, "income": 16}
    assert LAYOUT.size == 19
    assert LAYOUT.category_keys == frozenset({"age", "region"})


def test_every_slot_is_used_once():
    used = [RESPONDENTS_SLOT, *LAYOUT.cells.values()]
    used += [slot + i for slot in LAYOUT.numbers.values() for i in (1, 2)]
    assert sorted(used) == list(range(LAYOUT.size))


@pytest.mark.parametrize(
    ("question", "cells", "size"),
    [
        (q("x", "yes_no"), {("x", "yes"): 1, ("x", "no"): 2}, 3),
        (q("x", "choice", ["p", "q"]), {("x", "p"): 1, ("x", "q"): 2}, 3),
        (q("x", "category", ["p"]), {("x", "p"): 1}, 2),
        (q("x", "number"), {("x", ""): 1}, 4),
    ],
)
def test_one_question_of_each_kind(question, cells, size):
    layout = tally_layout([question])
    assert dict(layout.cells) == cells and layout.size == size
    assert layout.category_keys == (frozenset({"x"}) if question.kind == "category" else set())
    assert dict(layout.numbers) == ({"x": 1} if question.kind == "number" else {})


def test_no_questions():
    layout = tally_layout([])
    assert layout.size == 1 and not layout.cells and not layout.numbers
    assert submission_vector(layout, {}) == [1.0]
    assert submission_slices(layout, {}) == [ALL_RESPONDENTS]


def test_vector_of_a_submission():
    answers = {"coin": True, "party": "c", "age": "old", "hours": 2.5, "mirror": False}
    vector = submission_vector(LAYOUT, answers)
    assert len(vector) == LAYOUT.size
    expected = [0.0] * LAYOUT.size
    for slot in (0, 1, 5, 7, 15):  # respondents, coin yes, party c, age old, mirror no
        expected[slot] = 1.0
    expected[8:11] = [1.0, 2.5, 6.25]  # hours: count, sum, sum of squares
    assert vector == expected  # region and income skipped: zeros
    assert all(type(x) is float for x in vector)


def test_vector_of_false_and_zero_answers():
    vector = submission_vector(LAYOUT, {"coin": False, "income": 0.0, "hours": -3})
    assert vector[LAYOUT.cells[("coin", "no")]] == 1.0
    assert vector[LAYOUT.cells[("coin", "yes")]] == 0.0
    assert vector[16:19] == [1.0, 0.0, 0.0]  # an answered 0 still counts
    assert vector[8:11] == [1.0, -3.0, 9.0]
    assert sum(vector) == 1 + 1 + 1 + 1 - 3 + 9


def test_slices_sorted_and_only_answered_categories():
    assert submission_slices(LAYOUT, {"coin": True}) == [("", "")]
    assert submission_slices(LAYOUT, {"region": "south", "age": "young", "party": "a"}) == [
        ("", ""),
        ("age", "young"),
        ("region", "south"),
    ]
    # choice questions and numbers never make a slice, whatever their value.
    assert submission_slices(LAYOUT, {"party": "b", "hours": 1.0, "region": "east"}) == [
        ("", ""),
        ("region", "east"),
    ]
    layout = tally_layout([q("zeta", "category", ["z"]), q("alpha", "category", ["b", "a"])])
    for _ in range(5):  # the order is the sorted order, not the question or dict order
        assert submission_slices(layout, {"zeta": "z", "alpha": "b"}) == [
            ("", ""),
            ("alpha", "b"),
            ("zeta", "z"),
        ]


def test_vector_add():
    total: list[float] = []
    vector_add(total, [1.0, 2.0])
    assert total == [1.0, 2.0]
    vector_add(total, [1.0, 0.5, 3.0, 4.0])  # the shorter total is padded with zeros
    assert total == [2.0, 2.5, 3.0, 4.0]
    vector_add(total, [1.0])  # a shorter vector adds to the first slots only
    assert total == [3.0, 2.5, 3.0, 4.0]
    vector_add(total, [])
    assert total == [3.0, 2.5, 3.0, 4.0]


def _random_answers(rng: np.random.Generator) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "coin": bool(rng.random() < 0.5),
        "party": str(rng.choice(["a", "b", "c"])),
        "mirror": bool(rng.random() < 0.3),
    }
    if rng.random() < 0.7:
        answers["age"] = str(rng.choice(["young", "old"]))
    if rng.random() < 0.6:
        answers["region"] = str(rng.choice(["north", "south", "east"]))
    if rng.random() < 0.8:
        answers["hours"] = round(float(rng.uniform(0, 80)), 2)
    if rng.random() < 0.5:
        answers["income"] = float(rng.uniform(0, 1e5))
    return answers


def test_recount_is_the_sum_of_the_vectors():
    rng = np.random.default_rng(7)
    shards = 16
    subs = [(uuid.UUID(bytes=rng.bytes(16), version=4), _random_answers(rng)) for _ in range(300)]
    recount = tally_recount(LAYOUT, subs, shards)

    expected: dict[tuple[str, str], list[float]] = {}
    for _, answers in subs:
        for group in submission_slices(LAYOUT, answers):
            vector_add(expected.setdefault(group, []), submission_vector(LAYOUT, answers))
    summed: dict[tuple[str, str], list[float]] = {}
    for (group_key, group_value, shard), vector in recount.items():
        assert 0 <= shard < shards and isinstance(shard, int)
        assert len(vector) == LAYOUT.size
        vector_add(summed.setdefault((group_key, group_value), []), vector)
    assert summed.keys() == expected.keys()
    for group, vector in expected.items():
        assert summed[group] == pytest.approx(vector, rel=1e-12), group
    assert summed[ALL_RESPONDENTS][RESPONDENTS_SLOT] == 300
    # Counts straight from the answers, not through submission_vector.
    assert summed[("age", "old")][0] == sum(a.get("age") == "old" for _, a in subs)
    coin_yes = LAYOUT.cells[("coin", "yes")]
    assert summed[ALL_RESPONDENTS][coin_yes] == sum(a["coin"] for _, a in subs)
    hours = LAYOUT.numbers["hours"]
    assert summed[ALL_RESPONDENTS][hours] == sum("hours" in a for _, a in subs)
    assert summed[ALL_RESPONDENTS][hours + 1] == pytest.approx(
        sum(a.get("hours", 0.0) for _, a in subs), rel=1e-12
    )
    # 300 random ids land in more than one shard.
    assert len({shard for (_, _, shard) in recount}) > 1


@pytest.mark.parametrize("shards", [1, 3, 16])
def test_recount_shard_derived_from_the_id(shards):
    ids: list[Any] = [
        uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff"),
        uuid.UUID("00000000-0000-4000-8000-000000000000"),
        "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0",  # a string id, as values_list may give
        uuid.UUID("0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0").hex,  # SQLite's dashless form
    ]
    for sid in ids:
        recount = tally_recount(LAYOUT, [(sid, {"coin": True})], shards)
        ((group_key, group_value, shard),) = recount
        assert (group_key, group_value) == ALL_RESPONDENTS
        assert shard == uuid.UUID(str(sid)).int % shards
        assert 0 <= shard < shards
    same = [tally_recount(LAYOUT, [(sid, {"coin": True})], shards) for sid in ids[2:]]
    assert same[0] == same[1]  # the same id, whatever its form, gets the same shard


def test_recount_of_nothing():
    assert tally_recount(LAYOUT, [], 16) == {}
