"""Once a survey has opened, the staff admin can neither refill its budget nor send it back to
draft (issue 21, item 1; DESIGN §8.5). Both attacks are driven through the real admin change
form with a superuser's client, posting back what the form shows with one field changed."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from privacy.models import Release
from surveys.models import Question, Survey
from tests.security.admin_forms import change_form_data
from testsupport.factories import (
    api_client,
    make_release,
    make_release_survey,
    make_survey,
    make_user,
    reload,
    survey_body,
)

# Both backends (CI runs them again on SQLite, the embedded default).
pytestmark = [pytest.mark.django_db, pytest.mark.both_backends]


@pytest.fixture
def admin_client(django_user_model) -> Client:
    admin = django_user_model.objects.create_superuser("root", password="root-password-123")
    client = Client()
    client.force_login(admin)
    return client


def post_change(client: Client, survey: Survey, **changes: Any) -> Any:
    url = reverse("admin:surveys_survey_change", args=[survey.pk])
    page = client.get(url)
    assert page.status_code == 200
    data = change_form_data(page)
    data.update(changes)
    return client.post(url, data)


@pytest.fixture
def spent_survey():
    owner = make_user("owner")
    survey = make_release_survey(owner, epsilon=1.0, respondents=25)
    release = make_release(survey, owner, {"mechanism": "laplace", "epsilon": 1.0})
    assert release.status == Release.Status.DONE
    return survey


def test_admin_cannot_raise_the_budget_of_a_spent_survey(admin_client, spent_survey) -> None:
    post_change(admin_client, spent_survey, budget_epsilon="50", budget_delta="0.5")
    survey = reload(spent_survey)
    assert survey.budget_epsilon == 1.0
    assert survey.budget_delta == 1e-6
    # And the API refuses the next release: the budget is spent.
    api = api_client(survey.owner)
    r = api.post(
        f"/api/v1/surveys/{survey.slug}/releases/",
        {"mechanism": "laplace", "epsilon": 1.0},
        format="json",
    )
    assert r.status_code in (400, 409), r.content
    assert Release.objects.filter(survey=survey).count() == 1


def test_admin_cannot_send_an_open_survey_back_to_draft(admin_client, spent_survey) -> None:
    post_change(admin_client, spent_survey, status=Survey.Status.DRAFT)
    survey = reload(spent_survey)
    assert survey.status == Survey.Status.OPEN
    # So the API still refuses to change its design.
    question = survey.questions.get(kind=Question.Kind.YES_NO)
    api = api_client(survey.owner)
    r = api.patch(
        f"/api/v1/surveys/{survey.slug}/",
        {"budget": {"epsilon": 9.0, "delta": 1e-6}},
        format="json",
    )
    assert r.status_code == 409, r.content
    question.refresh_from_db()
    assert reload(survey).budget_epsilon == 1.0


def test_admin_caps_a_draft_budget(admin_client) -> None:
    """The budget cap (DENIABLE_MAX_BUDGET_EPSILON, item 2) holds in the admin too."""
    survey = make_survey(make_user("owner"), survey_body(), open_=False)
    response = post_change(admin_client, survey, budget_epsilon="1e308", budget_delta="0.5")
    assert response.status_code == 200  # the form again, with the errors
    errors = response.context["adminform"].form.errors
    assert "budget_epsilon" in errors and "budget_delta" in errors, errors
    assert reload(survey).budget_epsilon == 1.0
    assert reload(survey).budget_delta == 1e-6
