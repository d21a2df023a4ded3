"""Survey services (surveys/services/): invitations (HMAC digests only, count bounds,
invite-only surveys)."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from django.conf import settings

from deniable.errors import Conflict, InvalidInput
from surveys.models import Invitation
from testsupport import factories

pytestmark = pytest.mark.django_db


def test_invitations_store_only_hmac_digests(invite_survey):
    tokens = factories.invitations_create(survey=invite_survey, count=5)
    assert len(set(tokens)) == 5
    digests = set(Invitation.objects.values_list("digest", flat=True))
    key = settings.INVITATION_TOKEN_KEY.encode()
    assert digests == {hmac.new(key, t.encode(), hashlib.sha256).hexdigest() for t in tokens}
    assert not any(t in d for t in tokens for d in digests)


@pytest.mark.parametrize("count", [0, -1, 10_001, "5", 2.5, True, None])
def test_invitation_count_bounds(invite_survey, count):
    with pytest.raises(InvalidInput) as caught:
        factories.invitations_create(survey=invite_survey, count=count)
    assert "count" in caught.value.errors


def test_invitations_need_invite_survey(survey):
    with pytest.raises(Conflict):
        factories.invitations_create(survey=survey, count=1)
