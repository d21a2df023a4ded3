"""Helpers of the selector tests: five submissions of every kind (one with skipped answers)."""

from __future__ import annotations

from testsupport.factories import full_answers, submit


def populate(survey):
    answers = [
        full_answers(coin=True, age="young", hours=10),
        full_answers(coin=True, age="young", hours=20, party="a"),
        full_answers(coin=False, age="old", hours=30, party="c"),
        full_answers(coin=False, age=None, hours=None, mirror=True),
        full_answers(coin=True, age="old", hours=40, party="a"),
    ]
    for a in answers:
        submit(survey, a)
