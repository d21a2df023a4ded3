"""The hooks and their latest deliveries (surveys/webhooks/selectors.py), as the survey's sharing
page shows them to the owner only, in English and Spanish."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation

from surveys.models import Collaborator, Webhook, WebhookDelivery
from surveys.webhooks.selectors import HISTORY, webhooks_with_history
from testsupport.factories import make_survey, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def hooked():
    owner = make_user("owner", "owner-pw-123")
    survey = make_survey(owner)
    hook = Webhook.objects.create(survey=survey, url="https://hooks.example/a", secret="s" * 64)
    quiet = Webhook.objects.create(survey=survey, url="https://hooks.example/b", secret="t" * 64)
    for n in range(1, HISTORY + 3):
        WebhookDelivery.objects.create(
            webhook=hook, respondents=10 * n, body="{}", status="delivered", response_status=200
        )
    return owner, survey, hook, quiet


def test_latest_deliveries_newest_first_capped(hooked, django_assert_max_num_queries):
    _, survey, hook, quiet = hooked
    with django_assert_max_num_queries(2):
        hooks = webhooks_with_history(survey=survey)
    assert [h.pk for h in hooks] == [hook.pk, quiet.pk]
    assert [d.respondents for d in hooks[0].latest] == [10 * n for n in range(HISTORY + 2, 2, -1)]
    assert hooks[1].latest == []


def test_the_owner_sees_hooks_and_history_on_the_sharing_page(hooked):
    owner, survey, hook, _ = hooked
    client = Client()
    client.force_login(owner)
    page = client.get(reverse("survey-sharing", args=[survey.slug])).content.decode()
    assert 'id="webhooks"' in page and hook.url in page and "HTTP 200" in page
    assert hook.secret not in page


def test_a_collaborator_does_not_see_them(hooked):
    _, survey, hook, _ = hooked
    editor = make_user("ed", "ed-pw-1234567")
    Collaborator.objects.create(survey=survey, user=editor, role="editor")
    client = Client()
    client.force_login(editor)
    page = client.get(reverse("survey-sharing", args=[survey.slug])).content.decode()
    assert 'id="webhooks"' not in page and hook.url not in page


def test_the_words_are_in_spanish_too(hooked):
    _, survey, _, _ = hooked
    hooks = webhooks_with_history(survey=survey)
    with translation.override("es"):
        html = render_to_string("surveys/_webhooks.html", {"webhooks": hooks})
    assert "Participantes tras el lote" in html and "entregado" in html
    assert "Todavía no se ha anunciado ningún lote." in html
