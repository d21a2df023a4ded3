"""Survey services (surveys/services/): survey_create validation and defaults, survey_update and
the lifecycle."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone

from deniable.errors import Conflict, InvalidInput
from surveys import services
from surveys.definitions import question_designs as designs
from surveys.models import Question, Survey
from testsupport import factories
from testsupport.factories import survey_body

pytestmark = pytest.mark.django_db


def test_create_applies_defaults(alice):
    survey = factories.survey_create(owner=alice, data=survey_body())
    assert survey.status == Survey.Status.DRAFT
    assert survey.access == Survey.Access.OPEN
    assert survey.budget_epsilon == 1.0 and survey.budget_delta == 1e-6
    coin = survey.questions.get(key="coin")
    assert coin.design == {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
    assert designs.question_epsilon(coin) == pytest.approx(math.log(3))
    mirror = survey.questions.get(key="mirror")
    assert designs.question_epsilon(mirror) == pytest.approx(math.log(3))  # c = .5, d = .25
    assert designs.question_epsilon(survey.questions.get(key="party")) == 1.0
    assert designs.question_epsilon(survey.questions.get(key="age")) is None
    total = designs.epsilon_local_total(survey.questions.all())
    assert total == pytest.approx(2 * math.log(3) + 1.0)
    assert [q.key for q in survey.questions.all()] == ["coin", "mirror", "party", "age", "hours"]


def test_choice_default_epsilon_is_ln3(alice):
    body = survey_body(
        questions=[{"key": "c", "text": "?", "kind": "choice", "options": ["x", "y", "z"]}]
    )
    survey = factories.survey_create(owner=alice, data=body)
    q = survey.questions.get()
    assert q.design == {"name": "k_rr", "epsilon": designs.DEFAULT_CHOICE_EPSILON}
    assert designs.question_epsilon(q) == pytest.approx(math.log(3))


def _mutate(path: str, value):
    body = survey_body()
    target = body
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
    last = parts[-1]
    if value is KeyError:
        target.pop(last if not last.isdigit() else int(last))
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return body


BAD_SURVEYS = [
    ("title", "", "title"),
    ("title", KeyError, "title"),
    ("title", 5, "title"),
    ("access", "secret", "access"),
    ("budget.epsilon", 0, "budget.epsilon"),
    ("budget.epsilon", -1, "budget.epsilon"),
    ("budget.epsilon", float("inf"), "budget.epsilon"),
    ("budget.epsilon", float("nan"), "budget.epsilon"),
    ("budget.epsilon", "1", "budget.epsilon"),
    ("budget.delta", 0, "budget.delta"),
    ("budget.delta", 1, "budget.delta"),
    ("budget", [], "budget"),
    ("response_cap", 0, "response_cap"),
    ("planned_n", -5, "planned_n"),
    ("closes_at", "tomorrow", "closes_at"),
    ("questions", "nope", "questions"),
    ("questions.0.key", "Has space", "questions[0].key"),
    ("questions.0.key", "mirror", "questions[1].key"),
    ("questions.0.text", "", "questions[0].text"),
    ("questions.0.kind", "essay", "questions[0].kind"),
    (
        "questions.0.design",
        {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.3, "p_no": 0.3},
        "questions[0].design",
    ),
    (
        "questions.0.design",
        {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25},
        "questions[0].design.p_no",
    ),
    ("questions.0.design", {"name": "k_rr", "epsilon": 1}, "questions[0].design.name"),
    ("questions.0.design", {"name": "warner", "p": "x"}, "questions[0].design.p"),
    ("questions.0.design", {"name": "warner", "p": 0.5}, "questions[0].design"),
    ("questions.0.design", {"name": "warner", "p": 0.75, "extra": 1}, "questions[0].design.extra"),
    ("questions.0.design", "coin", "questions[0].design"),
    ("questions.2.options", ["a"], "questions[2].options"),
    ("questions.2.options", ["a", "a"], "questions[2].options"),
    ("questions.2.options", ["a", ""], "questions[2].options[1]"),
    ("questions.2.options", [str(i) for i in range(51)], "questions[2].options"),
    ("questions.2.design", {"name": "k_rr", "epsilon": 0}, "questions[2].design.epsilon"),
    ("questions.2.design", {"name": "k_rr", "epsilon": -1}, "questions[2].design.epsilon"),
    ("questions.3.options", KeyError, "questions[3].options"),
    ("questions.3.design", {"name": "k_rr", "epsilon": 1}, "questions[3].design"),
    ("questions.4.min", 80, "questions[4].max"),
    ("questions.4.max", float("inf"), "questions[4].max"),
    ("questions.4.min", KeyError, "questions[4].min"),
    ("questions.4.options", ["a", "b"], "questions[4].options"),
]


@pytest.mark.parametrize(("path", "value", "field"), BAD_SURVEYS)
def test_create_rejects_and_names_the_field(alice, path, value, field):
    with pytest.raises(InvalidInput) as caught:
        factories.survey_create(owner=alice, data=_mutate(path, value))
    # The error names the field (or, for a design, the parameter inside it).
    assert any(k == field or k.startswith(field + ".") for k in caught.value.errors), (
        caught.value.errors
    )
    assert Survey.objects.count() == 0 and Question.objects.count() == 0


@pytest.mark.parametrize(
    "design",
    [
        {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.5, "p_no": 0.0},
        {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.0, "p_no": 0.5},
        {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.0},
        {"name": "warner", "p": 1.0},
    ],
)
def test_one_sided_designs_are_refused(alice, design):
    body = survey_body(questions=[{"key": "q", "text": "?", "kind": "yes_no", "design": design}])
    with pytest.raises(InvalidInput) as caught:
        factories.survey_create(owner=alice, data=body)
    messages = " ".join(m for ms in caught.value.errors.values() for m in ms)
    assert "not differentially private" in messages or "questions[0].design" in str(
        caught.value.errors
    )


def test_create_with_slug_and_options(alice):
    closes = timezone.now() + timedelta(days=3)
    survey = factories.survey_create(
        owner=alice,
        data=survey_body(
            access="invite",
            closes_at=closes.isoformat(),
            response_cap=10,
            planned_n=200,
            budget={"epsilon": 2.5},
        ),
        slug="fixed",
    )
    assert survey.slug == "fixed"
    assert survey.access == "invite" and survey.response_cap == 10 and survey.planned_n == 200
    assert survey.budget_epsilon == 2.5 and survey.budget_delta == 1e-6
    assert abs((survey.closes_at - closes).total_seconds()) < 1


def test_update_draft_replaces_questions(draft):
    factories.survey_update(
        survey=draft,
        data={"title": "New", "questions": [{"key": "only", "text": "?", "kind": "yes_no"}]},
    )
    draft.refresh_from_db()
    assert draft.title == "New"
    assert [q.key for q in draft.questions.all()] == ["only"]


def test_update_validates(draft):
    with pytest.raises(InvalidInput) as caught:
        factories.survey_update(survey=draft, data={"questions": [{"key": "x", "kind": "yes_no"}]})
    assert "questions[0].text" in caught.value.errors
    assert draft.questions.count() == 5


def test_update_open_survey_conflicts(survey):
    with pytest.raises(Conflict):
        factories.survey_update(survey=survey, data={"title": "x"})


def test_lifecycle(draft):
    with pytest.raises(Conflict):
        services.survey_close(survey=draft)
    services.survey_open(survey=draft)
    assert Survey.objects.get(pk=draft.pk).status == "open"
    with pytest.raises(Conflict):
        services.survey_open(survey=draft)
    services.survey_close(survey=draft)
    assert Survey.objects.get(pk=draft.pk).status == "closed"
    with pytest.raises(Conflict):
        services.survey_open(survey=draft)
    with pytest.raises(Conflict):
        services.survey_close(survey=draft)


def test_open_needs_questions(alice):
    survey = factories.survey_create(owner=alice, data={"title": "Empty", "questions": []})
    with pytest.raises(Conflict):
        services.survey_open(survey=survey)
