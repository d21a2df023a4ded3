"""The freeze of an opened survey (DESIGN §8.5, SECURITY.md "Frozen once open").

Reports already collected were randomized under the survey's designs and shown its texts, and its
budget bounds what may ever be published from them. So once a survey has left ``draft``, nothing
may send it back to draft, raise its budget, or change its questions, designs or the texts its
respondents' devices showed (title, description, languages, translations); its slug (respondents'
links) and owner (there is no ownership transfer) are fixed too.

This module is the one guard every save path goes through: ``Survey.save`` / ``Survey.clean``
and ``Question.save`` / ``Question.delete`` (plus a ``pre_delete`` receiver for queryset
deletes) call it, so the API, the pages, the admin (forms, inlines and actions) and management
commands are all refused alike. Bulk ``QuerySet.update`` / ``bulk_create`` and raw SQL do not call
``save``: no code path of the app uses them on an opened survey's rows (the services check the
status under the row lock first), and they are not reachable without a shell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings

from dpcore.central import calibration

DRAFT = "draft"
# Columns an opened survey never changes (attribute names).
FROZEN_FIELDS = ("slug", "owner_id", "title", "description", "languages", "translations")
BUDGET_FIELDS = ("budget_epsilon", "budget_delta")
# The life cycle after opening: close, archive, unarchive. Never back to draft, never reopened.
TRANSITIONS = {
    ("draft", "open"),
    ("open", "closed"),
    ("closed", "archived"),
    ("archived", "closed"),
}
CHECKED_FIELDS = ("status", *FROZEN_FIELDS, *BUDGET_FIELDS)


class SurveyFrozen(Exception):
    """A write that would change what an opened survey's reports were collected under."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


def survey_freeze_errors(
    stored: Mapping[str, Any], new: Mapping[str, Any], fields: Iterable[str] | None = None
) -> dict[str, str]:
    """{field: reason} for each change of ``stored`` → ``new`` (attribute values of one survey
    row) the freeze refuses; ``fields`` limits the check (a save with ``update_fields``)."""
    check = set(CHECKED_FIELDS if fields is None else fields) & set(CHECKED_FIELDS)
    old_status = stored["status"]
    if old_status == DRAFT:
        return {}
    errors: dict[str, str] = {}
    if "status" in check and new["status"] != old_status:
        if (old_status, new["status"]) not in TRANSITIONS:
            errors["status"] = (
                f"A survey that has opened cannot go from {old_status} to {new['status']}."
            )
    for name in BUDGET_FIELDS:
        if name in check and new[name] > stored[name]:
            errors[name] = "The budget of a survey that has opened can never be raised."
    for name in FROZEN_FIELDS:
        if name in check and new[name] != stored[name]:
            errors[name.removesuffix("_id")] = "Fixed once the survey has opened."
    return errors


def question_freeze_check(survey_status: str | None) -> None:
    """Refuse adding, changing or deleting a question of a survey that has opened."""
    if survey_status is not None and survey_status != DRAFT:
        raise SurveyFrozen(
            {"questions": "The questions and designs of a survey that has opened are fixed."}
        )


def budget_delta_error(value: float) -> str | None:
    """Why ``value`` cannot be a survey's budget δ: the API's range (the admin asks here)."""
    if not calibration.MIN_DELTA <= value <= calibration.MAX_DELTA:
        return f"Must lie between {calibration.MIN_DELTA:g} and {calibration.MAX_DELTA:g}."
    return None


def budget_epsilon_error(value: float) -> str | None:
    """Why ``value`` cannot be a survey's budget ε: above ``DENIABLE_MAX_BUDGET_EPSILON`` (read at
    call time). The API's input serializer and ``Survey.clean`` (the admin) both ask here."""
    cap = float(settings.DENIABLE_MAX_BUDGET_EPSILON)
    if not value > 0:
        return "A finite number > 0 is required."
    if value > cap:
        return f"At most {cap:g}: a larger budget lets releases reveal single reports."
    return None
