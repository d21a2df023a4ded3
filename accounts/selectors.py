"""Account reads."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from accounts.models import ApiToken, SignupInvitation


def api_tokens_for(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created", "-id")


def signup_invitations_recent(*, limit: int = 50) -> QuerySet[SignupInvitation]:
    return SignupInvitation.objects.select_related("created_by", "used_by").order_by(
        "-created", "-id"
    )[:limit]
