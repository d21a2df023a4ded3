"""Submissions: store one respondent's *reported* answers idempotently.

The answers were validated against the survey's questions by
:class:`surveys.inputs.SubmissionRequestSerializer` (the API and the no-JS form alike):

* only *reported* answers are accepted and stored — the API has no field for a true answer;
* a submission stores a random client UUID, the randomizer and the date; nothing about the client;
* a retried ``submission_id`` with the same body is answered ``duplicate`` (nothing written).

The rows are built by :mod:`surveys.services.submission_rows` and written by
:mod:`surveys.services.submission_storage`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from django.db import connection
from django.utils.translation import gettext as _

from deniable.errors import Conflict, ErrorCode, NotFound
from surveys.definitions.specs import Answer
from surveys.models import Submission, Survey
from surveys.services.batches import batch_crossed, submissions_publish_due
from surveys.services.invitations import invitation_digest
from surveys.services.submission_storage import (
    submission_insert_params,
    submission_store,
    submission_store_one_statement,
)


@dataclass(frozen=True)
class SubmissionOutcome:
    submission_id: uuid.UUID
    status: Literal["accepted", "duplicate"]


def _fingerprint(*, survey: Survey, randomizer: str, answers: dict) -> str:
    """SHA-256 of a canonical JSON of what the submission reports (for idempotent retries).

    Never the token, nor anything derived from it: a value computed from the invitation's digest
    and stored beside the answers named each response's invitation to anyone with a database
    copy (issue 11, item 1). A retry is recognised by its ``submission_id`` and this fingerprint;
    a token is spent once by its own conditional UPDATE, so reuse is still refused."""
    canonical = json.dumps(
        {"survey": survey.pk, "randomizer": randomizer, "answers": answers},
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _existing_outcome(submission_id: uuid.UUID, fingerprint: str) -> SubmissionOutcome | None:
    existing = Submission.objects.filter(pk=submission_id).only("fingerprint").first()
    if existing is None:
        return None
    if hmac.compare_digest(existing.fingerprint, fingerprint):
        return SubmissionOutcome(submission_id=submission_id, status="duplicate")
    raise Conflict(
        _("A different submission with this submission_id was already received."),
        code=ErrorCode.DUPLICATE_CONFLICT,
    )


def _invitation_digest(survey: Survey, token: str | None) -> str | None:
    """The token's digest for an invite-only survey (a token is required there), else None."""
    if survey.access != Survey.Access.INVITE:
        return None
    if not token:
        raise Conflict(_("This survey needs an invitation token."), code=ErrorCode.TOKEN_REQUIRED)
    return invitation_digest(token)


def _closed_outcome(submission_id: uuid.UUID, fingerprint: str) -> SubmissionOutcome:
    """A closed survey: a retry of an accepted submission is still answered as such."""
    outcome = _existing_outcome(submission_id, fingerprint)
    if outcome is not None:
        return outcome
    raise Conflict(_("This survey is closed."), code=ErrorCode.SURVEY_CLOSED)


def _unstored_outcome(
    survey: Survey, submission_id: uuid.UUID, fingerprint: str
) -> SubmissionOutcome:
    """Nothing was written: the id exists (a retry, or a concurrent twin that won), or the
    survey stopped accepting answers after it was read (e.g. closed while cached)."""
    outcome = _existing_outcome(submission_id, fingerprint)
    if outcome is not None:
        return outcome
    from surveys.collection import public_survey_cache

    public_survey_cache.invalidate(slug=survey.slug)
    if not Survey.objects.filter(pk=survey.pk).exclude(status=Survey.Status.DRAFT).exists():
        raise NotFound("No such survey.")
    raise Conflict(_("This survey is closed."), code=ErrorCode.SURVEY_CLOSED)


def submission_create(
    *,
    survey: Survey,
    submission_id: uuid.UUID,
    randomizer: str,
    answers: Mapping[str, Answer],
    token: str | None = None,
) -> SubmissionOutcome:
    """Store one respondent's *reported* answers, idempotently, in one transaction.

    The arguments are a validated :class:`surveys.definitions.specs.SubmissionSpec`
    (``spec.kwargs()``;
    :class:`surveys.inputs.SubmissionRequestSerializer` checked the answers against the questions).
    Same ``submission_id`` and same body → ``duplicate`` (nothing written); same id, other body →
    409. Invite-only surveys consume the token with a conditional UPDATE (exactly-once under
    concurrency). Nothing here touches Celery or Redis: collecting answers must not depend on them.
    """
    if survey.status == Survey.Status.DRAFT:
        raise NotFound("No such survey.")
    cleaned = dict(answers)
    digest = _invitation_digest(survey, token)
    fingerprint = _fingerprint(survey=survey, randomizer=randomizer, answers=cleaned)
    if not survey.is_accepting():
        return _closed_outcome(submission_id, fingerprint)
    submission_params = submission_insert_params(
        sid=submission_id,
        survey=survey,
        randomizer=randomizer,
        fingerprint=fingerprint,
        answers=cleaned,
    )
    if digest is None and survey.response_cap is None and connection.vendor == "postgresql":
        # One statement: the row, and the tail's size (no second round trip to count it).
        pending = submission_store_one_statement(submission_params=submission_params)
        if not pending:
            return _unstored_outcome(survey, submission_id, fingerprint)
        if batch_crossed(pending):
            submissions_publish_due(survey=survey)  # re-counts under the survey's lock
        return SubmissionOutcome(submission_id=submission_id, status="accepted")
    stored = submission_store(survey=survey, submission_params=submission_params, digest=digest)
    if not stored:
        return _unstored_outcome(survey, submission_id, fingerprint)
    return SubmissionOutcome(submission_id=submission_id, status="accepted")
