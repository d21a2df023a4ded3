"""The no-JS form's one-time ``submission_id`` (DESIGN §8.4, issue 21 item 12, issue 22 item 3):
the same form posted twice is one submission; each rendering of the form is a new id; a second
sending with other answers changes nothing and says so. (The Back button in Chromium:
tests/e2e/test_respondent_double_submit.py.)"""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from surveys.models import Submission
from tests.surveys.pages.support import physical_post

pytestmark = pytest.mark.django_db


def _form_id(client, survey) -> str:
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    (value,) = re.findall(r'<input type="hidden" name="submission_id" value="([^"]+)"', html)
    return value


def test_each_rendering_carries_a_fresh_uuid4(client, survey):
    ids = {_form_id(client, survey) for _ in range(3)}
    assert len(ids) == 3
    assert all(uuid.UUID(i).version == 4 for i in ids)


def test_the_same_form_posted_twice_is_stored_once(client, survey):
    data = {**physical_post(survey), "submission_id": _form_id(client, survey)}
    url = reverse("respond-submit", args=[survey.slug])
    for _ in range(2):
        response = client.post(url, data)
        assert response.status_code == 302, response.content[:300]
    assert Submission.objects.filter(survey=survey).count() == 1
    (row,) = Submission.objects.filter(survey=survey)
    assert str(row.pk) == data["submission_id"]


def test_the_same_form_with_other_answers_is_refused_and_said(client, survey):
    data = {**physical_post(survey), "submission_id": _form_id(client, survey)}
    url = reverse("respond-submit", args=[survey.slug])
    assert client.post(url, data).status_code == 302
    other = client.post(url, {**data, "q-age": "31" if data.get("q-age") != "31" else "32"})
    assert other.status_code == 409
    assert "These answers were already sent" in other.content.decode()
    assert Submission.objects.filter(survey=survey).count() == 1


def test_a_bad_id_is_a_refusal_not_a_500(client, survey):
    data = {**physical_post(survey), "submission_id": "not-a-uuid"}
    response = client.post(reverse("respond-submit", args=[survey.slug]), data)
    assert response.status_code == 400
    assert Submission.objects.count() == 0


def test_a_post_without_an_id_still_works(client, survey):
    """A page rendered before the field existed: a fresh id, as before."""
    url = reverse("respond-submit", args=[survey.slug])
    assert client.post(url, physical_post(survey)).status_code == 302
    assert client.post(url, physical_post(survey)).status_code == 302
    assert Submission.objects.filter(survey=survey).count() == 2


def test_a_long_id_is_refused_with_its_reason_shown(client, survey):
    """A 100-character id was a 400 with no message anywhere on the page (the hidden field's own
    max_length error is never rendered); now the API's rule shows at the top."""
    data = {**physical_post(survey), "submission_id": "a" * 100}
    response = client.post(reverse("respond-submit", args=[survey.slug]), data)
    assert response.status_code == 400
    assert "UUID" in response.content.decode()
    assert Submission.objects.count() == 0


def test_a_field_posted_twice_is_refused_not_read_as_its_last_value(client, survey):
    """`q-x=yes&q-x=no` stored `no` (Django's widgets read the last value), and two ids were
    accepted; each is now the field's error (the id's at the top), and nothing is stored."""
    single = {**physical_post(survey), "submission_id": _form_id(client, survey)}
    field = next(name for name in single if name.startswith("q-"))
    url = reverse("respond-submit", args=[survey.slug])
    for repeated, extra in ((field, "x"), ("submission_id", str(uuid.uuid4()))):
        body = {**single, repeated: [single[repeated], extra]}  # the client sends both
        response = client.post(url, body)
        assert response.status_code == 400, (repeated, response.status_code)
        assert "sent more than once" in response.content.decode()
    assert Submission.objects.count() == 0
