"""Issue 22, item 12 (the close dialog): it said "(0 so far)" while responses waited for their
batch. It now counts published responses, says that up to k − 1 may be waiting and that closing
does not publish them — without an exact unpublished count (issue 21, item 4): the dialog reads
the same whether 0 or k − 1 responses are waiting. English and Spanish (tú)."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client, override_settings
from django.utils import translation

from surveys.models import Submission
from surveys.services import survey_close
from testsupport import factories

K = 4
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]


def _dialog(client: Client, slug: str) -> str:
    html = client.get(f"/surveys/{slug}/").content.decode()
    match = re.search(r'<dialog id="close-dialog".*?</dialog>', html, re.S)
    assert match is not None
    return match.group(0)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_the_close_dialog_tells_the_truth_without_an_unpublished_count(alice, survey) -> None:
    client = Client()
    client.force_login(alice)
    empty = _dialog(client, survey.slug)
    assert "0 responses are published so far" in empty
    assert f"batches of {K}, so up to {K - 1} of the latest may still be waiting" in empty
    assert "they are not published: they stay out of the estimates, counts and exports" in empty
    for _ in range(K - 1):
        factories.submit(survey)
    assert _dialog(client, survey.slug) == empty  # nothing says how many are waiting
    factories.submit(survey)
    assert "4 responses are published so far" in _dialog(client, survey.slug)
    # What the dialog promises: closing leaves the waiting ones unpublished.
    for _ in range(K - 1):
        factories.submit(survey)
    survey_close(survey=survey)
    body = client.get(f"/api/v1/surveys/{survey.slug}/estimates/").json()
    assert body["respondents"] == K
    assert Submission.objects.filter(survey=survey, sealed=False).count() == K - 1


def test_the_close_dialog_in_spanish() -> None:
    with translation.override("es"):
        one = render_to_string("surveys/_close_dialog_note.html", {"respondents": 1, "batch": 10})
        many = render_to_string("surveys/_close_dialog_note.html", {"respondents": 30, "batch": 10})
    assert "Ya nadie podrá responder. Hay 1 respuesta publicada hasta ahora." in one
    assert "Hay 30 respuestas publicadas hasta ahora." in many
    assert "en lotes de 10, así que hasta 9 de las más recientes" in many
    assert "Si cierras la encuesta ahora, no se publican" in many
    assert "usted" not in many.lower() and "cierre " not in many  # tú, never usted
