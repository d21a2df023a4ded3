"""Selectors (surveys/selectors/): public and owner visibility; owner selectors refuse anonymous
users."""

from __future__ import annotations

import pytest

from deniable.errors import NotFound
from surveys import selectors, services
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db


def test_public_visibility(draft):
    with pytest.raises(NotFound):
        selectors.survey_get_public(slug=draft.slug)
    with pytest.raises(NotFound):
        selectors.survey_get_public(slug="nope")
    services.survey_open(survey=draft)
    assert selectors.survey_get_public(slug=draft.slug).pk == draft.pk
    services.survey_close(survey=draft)
    assert selectors.survey_get_public(slug=draft.slug).pk == draft.pk  # shows "closed"


def test_owner_visibility(draft, alice, bob):
    assert selectors.survey_get_for_user(user=alice, slug=draft.slug, need="own").pk == draft.pk
    with pytest.raises(NotFound):
        selectors.survey_get_for_user(user=bob, slug=draft.slug, need="own")
    assert list(selectors.survey_list_for_user(user=bob)) == []
    listed = list(selectors.survey_list_for_user(user=alice))
    assert [s.pk for s in listed] == [draft.pk] and listed[0].respondents == 0


def _populate(survey):
    answers = [
        full_answers(coin=True, age="young", hours=10),
        full_answers(coin=True, age="young", hours=20, party="a"),
        full_answers(coin=False, age="old", hours=30, party="c"),
        full_answers(coin=False, age=None, hours=None, mirror=True),
        full_answers(coin=True, age="old", hours=40, party="a"),
    ]
    for a in answers:
        submit(survey, a)


def test_owner_selectors_refuse_anonymous(draft):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(NotFound):
        selectors.survey_get_for_user(user=AnonymousUser(), slug=draft.slug, need="own")
    assert list(selectors.survey_list_for_user(user=AnonymousUser())) == []
