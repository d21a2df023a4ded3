"""Selectors (surveys/selectors/): counts and their bad arguments."""

from __future__ import annotations

import pytest

from deniable.errors import InvalidInput
from surveys import selectors
from tests.surveys.selectors.support import populate

pytestmark = pytest.mark.django_db


def test_counts(survey):
    populate(survey)
    counts = selectors.survey_counts(survey=survey)
    assert counts.respondents == 5
    cells = counts.cells[""]
    assert cells["coin"] == {"yes": 3, "no": 2}
    assert cells["mirror"] == {"yes": 1, "no": 4}
    assert cells["party"] == {"a": 2, "b": 2, "c": 1, "d": 0}
    assert cells["age"] == {"young": 2, "old": 2}
    assert cells["hours"] == {"": 4}
    assert counts.sums[""]["hours"].total == 100 and counts.sums[""]["hours"].total_sq == 3000

    grouped = selectors.survey_counts(
        survey=survey, group_by="age", question_keys=["coin", "hours"]
    )
    assert grouped.group_by == "age" and grouped.respondents == 5
    assert grouped.group_respondents == {"young": 2, "old": 2}
    assert grouped.cells["young"] == {"coin": {"yes": 2, "no": 0}, "hours": {"": 2}}
    assert grouped.cells["old"]["coin"] == {"yes": 1, "no": 1}
    assert grouped.sums["old"]["hours"].total == 70
    assert selectors.survey_respondent_count(survey=survey) == 5


def test_counts_bad_arguments(survey):
    with pytest.raises(InvalidInput) as caught:
        selectors.survey_counts(survey=survey, question_keys=["nope"])
    assert "questions" in caught.value.errors
    for bad in ("coin", "nope"):
        with pytest.raises(InvalidInput) as caught:
            selectors.survey_counts(survey=survey, group_by=bad)
        assert "group_by" in caught.value.errors
