"""Selectors (surveys/selectors/): public and team visibility, the permission resolver's ranks;
researcher selectors refuse anonymous users."""

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
    assert [s.pk for s in selectors.survey_list_for_user(user=alice)] == [draft.pk]  # once
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


# --- the permission resolver (docs/teams.md#roles) ----------------------------------------------


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        ("viewer", {"view"}),
        ("editor", {"view", "edit"}),
    ],
)
def test_resolver_ranks_roles(alice, bob, draft, role, allowed):
    from deniable.errors import Forbidden
    from surveys.models import Collaborator

    Collaborator.objects.create(survey=draft, user=bob, role=role)
    assert selectors.survey_role(user=bob, survey=draft) == role
    for need in ("view", "edit", "own"):
        if need in allowed:
            found = selectors.survey_get_for_user(user=bob, slug=draft.slug, need=need)
            assert found.pk == draft.pk and found.role == role
            assert selectors.survey_require(user=bob, survey=draft, need=need) == role
        else:
            with pytest.raises(Forbidden) as refused:
                selectors.survey_get_for_user(user=bob, slug=draft.slug, need=need)
            assert refused.value.extra == {"role": role, "needs": need}
    owned = selectors.survey_get_for_user(user=alice, slug=draft.slug, need="own")
    assert owned.role == "owner"


def test_resolver_hides_surveys_from_strangers_even_when_shared_with_others(alice, bob, draft):
    from django.contrib.auth import get_user_model

    from surveys.models import Collaborator

    carol = get_user_model().objects.create_user("carol")
    Collaborator.objects.create(survey=draft, user=carol, role="editor")
    assert selectors.survey_role(user=bob, survey=draft) is None
    for need in ("view", "edit", "own"):
        with pytest.raises(NotFound):
            selectors.survey_get_for_user(user=bob, slug=draft.slug, need=need)
        with pytest.raises(NotFound):
            selectors.survey_require(user=bob, survey=draft, need=need)
    # The shared survey is listed once for its collaborator, with the role.
    listed = list(selectors.survey_list_for_user(user=carol))
    assert [(s.pk, s.shared_role) for s in listed] == [(draft.pk, "editor")]
    assert list(selectors.survey_list_for_user(user=bob)) == []
    assert [s.pk for s in selectors.survey_list_for_user(user=alice)] == [draft.pk]  # once
