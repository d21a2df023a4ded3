"""privacy.services.selection: ε per question never above its charge; published answers only;
the data-independent bounds; a failing draw refunds."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from deniable.errors import InvalidInput
from privacy.models import LedgerEntry, Release
from privacy.services import release_run, selection
from surveys.models import Submission
from testsupport import factories
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("epsilon", [0.1, 0.3, 1 / 3, 2.0, 1e-12, 7.77])
@pytest.mark.parametrize("m", [1, 2, 3, 7])
def test_sampled_epsilon_never_exceeds_the_charge(epsilon, m):
    exact, charged = selection.epsilon_each(epsilon, m)
    assert exact == Fraction(epsilon) / m
    assert Fraction(charged) >= exact
    assert math.fsum([charged] * m) >= epsilon


def test_q_of_each_statistic():
    assert selection.selection_q("median", None) == 0.5
    assert selection.selection_q("quantile", 0.9) == 0.9
    assert selection.selection_q("mode", None) is None


def test_unpublished_answers_are_not_used(owner):
    """Published batches only (DESIGN §8.5): unsealing every submission leaves nothing, and the
    request is refused before anything is charged."""
    survey = make_survey(owner, epsilon=1.0, respondents=12)
    questions = list(survey.questions.filter(key__in=["age", "region"]))
    assert selection._answered(survey, questions) == {"age": 12, "region": 12}
    Submission.objects.filter(survey=survey).update(sealed=False)
    age = [q for q in questions if q.key == "age"]
    assert selection._published_values(survey, age) == {"age": []}
    with pytest.raises(InvalidInput) as info:
        selection.selection_check(survey=survey, questions=questions)
    assert "questions" in info.value.as_body()["errors"]


def test_expected_error_is_data_independent(owner):
    few = make_survey(owner, epsilon=1.0, respondents=3)
    many = make_survey(owner, epsilon=1.0, respondents=40)
    out = [
        selection.selection_expected(
            questions=list(s.questions.filter(key="age")), statistic="median", q=None, epsilon=0.5
        )
        for s in (few, many)
    ]
    assert out[0] == out[1]
    assert out[0][0]["expected_error"]["measure"] == "rank_error"


def test_a_failing_draw_fails_and_refunds(owner, monkeypatch):
    survey = make_survey(owner, epsilon=1.0, respondents=10)
    release, _ = factories.release_request(
        survey=survey,
        user=owner,
        data={"mechanism": "exponential", "epsilon": 0.2, "statistic": "median"},
    )

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(selection, "select", broken)
    with pytest.raises(RuntimeError):
        release_run(release_id=str(release.pk))
    release.refresh_from_db()
    assert release.status == Release.Status.FAILED and release.results is None
    assert LedgerEntry.objects.get(release=release).refunded
