"""Writing the audit log: :func:`record` (one entry) and :func:`records` (a service decorator).

Services are decorated with one line, ``@records("survey.open")``: the entry is written after
the service returns (a refused call — an exception — writes nothing), inside the service's own
transaction when it has one. Who acted is the signed-in user of the current request
(:mod:`audit.context`, set by :class:`audit.context.AuditContextMiddleware`; DRF's token
authentication sets the same ``request.user``), else a ``user``/``owner`` argument of the
service, else nobody (the system: a management command, a task).

Only researchers' acts are recorded. The recorder takes no request data: the detail is what the
decorator's ``detail`` function picks from the service's arguments and result, so a respondent,
an answer, a time of answering or an invitation's use can never reach it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, Protocol, TypeVar

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from audit.context import current_user
from audit.models import Entry

P = ParamSpec("P")
R = TypeVar("R")

#: What a ``detail`` function gets (the keyword arguments and the result of the service) and
#: returns: the entry's detail, or None when the call changed nothing (no entry is written).
Detail = Callable[[Mapping[str, Any], Any], "dict[str, Any] | None"]


class SurveyLike(Protocol):
    pk: Any
    slug: str


def _no_detail(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    return {}


def _actor(fallback: Any) -> tuple[int | None, str]:
    user = current_user()
    if user is None and isinstance(fallback, AbstractBaseUser):
        user = fallback
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        return None, ""
    return user.pk, user.get_username()


def record(
    action: str,
    *,
    survey: SurveyLike | None = None,
    detail: Mapping[str, Any] | None = None,
    user: Any = None,
) -> Entry:
    """Append one entry: ``action`` by the current user (or ``user``) on ``survey``."""
    actor_pk, actor = _actor(user)
    return Entry.objects.create(
        actor_pk=actor_pk,
        actor=actor,
        action=action,
        survey_pk=survey.pk if survey is not None else None,
        survey_slug=survey.slug if survey is not None else "",
        detail=dict(detail or {}),
    )


def _survey_of(kwargs: Mapping[str, Any], result: Any) -> SurveyLike | None:
    survey = kwargs.get("survey")
    if survey is None and hasattr(result, "slug"):
        survey = result  # a service that creates the survey returns it
    return survey


def records(
    action: str, *, detail: Detail = _no_detail
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a keyword-only service: after it returns, append ``action`` for its survey."""

    def decorate(service: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(service)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            result = service(*args, **kwargs)
            details = detail(kwargs, result)
            if details is not None:
                fallback = kwargs.get("user") or kwargs.get("owner")
                record(action, survey=_survey_of(kwargs, result), detail=details, user=fallback)
            return result

        return wrapper

    return decorate


def keys(*names: str) -> Detail:
    """A ``detail`` function copying the named keyword arguments (plain values only)."""

    def pick(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
        return {name: kwargs[name] for name in names if name in kwargs}

    return pick


def if_true(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any] | None:
    """Record only when the service says it changed something (returns a true value)."""
    return {} if result else None
