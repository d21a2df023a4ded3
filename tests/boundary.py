"""The write paths as a caller outside HTTP goes through them: the input serializer (the one
validator, raising ``InvalidInput`` with the API's field paths), then the typed service.

Tests that used to hand a raw body to a service call these instead, so their assertions about
refusals exercise the same rules the API and the pages apply.
"""

from __future__ import annotations

from typing import Any

from privacy import inputs as privacy_inputs
from privacy import services as privacy_services
from surveys import inputs, services


def survey_create(*, owner: Any, data: Any, slug: str | None = None) -> Any:
    return services.survey_create(owner=owner, slug=slug, **inputs.survey_spec(data).kwargs())


def survey_update(*, survey: Any, data: Any) -> Any:
    return services.survey_update(survey=survey, changes=inputs.survey_changes(data))


def submission_create(*, survey: Any, **body: Any) -> Any:
    """``body``: the raw submission fields (``submission_id``, ``randomizer``, ``answers``,
    ``token``), as a client sends them; ``token=None`` is the same as no token."""
    questions = list(survey.questions.all())
    spec = inputs.submission_spec(questions=questions, data=body)
    return services.submission_create(survey=survey, **spec.kwargs())


def invitations_create(*, survey: Any, count: Any) -> list[str]:
    wanted = inputs.invitation_request({"count": count})
    return services.invitations_create(survey=survey, count=wanted.count)


def _release_spec(survey: Any, data: Any) -> Any:
    return privacy_inputs.release_spec(questions=list(survey.questions.all()), data=data)


def release_plan(*, survey: Any, data: Any) -> Any:
    return privacy_services.release_plan(survey=survey, spec=_release_spec(survey, data))


def release_request(*, survey: Any, user: Any, data: Any) -> tuple[Any, bool]:
    spec = _release_spec(survey, data)
    return privacy_services.release_request(survey=survey, user=user, spec=spec)


def release_preview(*, survey: Any, data: Any) -> dict[str, Any]:
    return privacy_services.release_preview(survey=survey, spec=_release_spec(survey, data))
