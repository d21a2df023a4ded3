"""The model-level freeze (surveys.definitions.freeze; issue 21, item 1): every save path, not only
the API's
service, refuses to send an opened survey back to draft, raise its budget, or change its
questions, designs or texts. Shell-free paths (admin forms and actions, commands) all end in
these saves."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from surveys.definitions.freeze import SurveyFrozen
from surveys.models import Question, Survey
from surveys.services import survey_close
from testsupport.factories import make_survey, make_user, reload, survey_body

# Both backends (CI runs them again on SQLite, the embedded default).
pytestmark = [pytest.mark.django_db, pytest.mark.both_backends]


@pytest.fixture
def opened():
    return reload(make_survey(make_user("owner"), survey_body()))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", Survey.Status.DRAFT),
        ("budget_epsilon", 1e6),
        ("budget_delta", 0.5),
        ("title", "Another title"),
        ("description", "Other words"),
        ("languages", ["en", "es"]),
        ("translations", {"es": {"title": "Otra"}}),
        ("slug", "another-slug"),
    ],
)
def test_an_opened_survey_refuses(opened, field, value) -> None:
    for status in ("open", "closed", "archived"):
        Survey.objects.filter(pk=opened.pk).update(status=status)
        survey = reload(opened)
        before = getattr(survey, field)
        setattr(survey, field, value)
        with pytest.raises(SurveyFrozen):
            survey.save()
        with pytest.raises(SurveyFrozen):
            survey.save(update_fields=[field])
        with pytest.raises(ValidationError):  # what the admin's form runs
            survey.full_clean()
        assert getattr(reload(opened), field) == before


def test_the_owner_is_fixed(opened) -> None:
    opened.owner = make_user("taker")
    with pytest.raises(SurveyFrozen):
        opened.save()
    assert reload(opened).owner.username == "owner"


def test_what_stays_allowed(opened) -> None:
    """Lowering the budget, the close date and the cap, and the life cycle's own transitions."""
    opened.budget_epsilon /= 2
    opened.response_cap = 5
    opened.save()
    survey_close(survey=opened)
    assert reload(opened).status == Survey.Status.CLOSED
    survey = reload(opened)
    survey.status = Survey.Status.OPEN  # never reopened
    with pytest.raises(SurveyFrozen):
        survey.save()


def test_questions_of_an_opened_survey_are_fixed(opened) -> None:
    question = opened.questions.get(key="coin")
    question.design = {"name": "warner", "p": 0.999}
    with pytest.raises(SurveyFrozen):
        question.save()
    with pytest.raises(SurveyFrozen):
        Question(survey=opened, key="new", kind="number", text="?").save()
    # Deleting runs in the collector's transaction, which the refusal breaks: a savepoint each.
    with pytest.raises(SurveyFrozen), transaction.atomic():
        question.delete()
    with pytest.raises(SurveyFrozen), transaction.atomic():
        opened.questions.all().delete()
    assert reload(opened).questions.count() == len(survey_body()["questions"])


def test_a_question_cannot_move_out_of_an_opened_survey(opened) -> None:
    draft = make_survey(opened.owner, survey_body(), open_=False)
    question = opened.questions.get(key="coin")
    question.survey = draft
    with pytest.raises(SurveyFrozen):
        question.save()


def test_deleting_a_closed_survey_still_works(opened) -> None:
    survey_close(survey=opened)
    reload(opened).delete()
    assert not Survey.objects.filter(pk=opened.pk).exists()
