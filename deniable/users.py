"""Who is asking: the type of ``request.user`` and its narrowing to a signed-in researcher.

Django's ``HttpRequest.user`` and DRF's ``Request.user`` hold a ``User`` or an
``AnonymousUser``. Owner-scoped selectors take that union as it comes and narrow it here once, so
an anonymous visitor is a 404 (existence is never leaked) and a query filters by a real ``User``.
"""

from __future__ import annotations

from typing import TypeAlias

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied

# What a request's ``user`` attribute holds (django-stubs types both requests' ``user`` so).
RequestUser: TypeAlias = User | AnonymousUser


def signed_in(user: RequestUser) -> User | None:
    """The signed-in user, or None for an anonymous visitor (``is_authenticated`` false)."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return None
    return user


def signed_in_user(user: RequestUser) -> User:
    """The signed-in user, for views that require one (DRF's default ``IsAuthenticated``, or
    ``login_required``): an anonymous visitor never gets this far, and would be a 403."""
    found = signed_in(user)
    if found is None:
        raise PermissionDenied
    return found
