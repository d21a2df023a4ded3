"""Submissions: validate one respondent's *reported* answers and store them idempotently.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.db import connection

from deniable.errors import Conflict, InvalidInput, NotFound
from surveys.models import Question, Submission, Survey
from surveys.services.batches import submissions_publish_if_due
from surveys.services.invitations import invitation_digest
from surveys.services.submission_storage import (
    submission_insert_params,
    submission_store,
    submission_store_one_statement,
)
from surveys.services.validation import MAX_ABS_NUMBER, Errors, add_error, is_finite_number


@dataclass(frozen=True)
class SubmissionOutcome:
    submission_id: uuid.UUID
    status: Literal["accepted", "duplicate"]


def _parse_submission_id(raw: Any) -> uuid.UUID:
    if isinstance(raw, uuid.UUID):
        value = raw
    elif isinstance(raw, str):
        try:
            value = uuid.UUID(raw)
        except ValueError:
            raise InvalidInput.single("submission_id", "Must be a UUID (version 4).") from None
    else:
        raise InvalidInput.single("submission_id", "Must be a UUID (version 4).")
    if value.version != 4 or value.variant != uuid.RFC_4122:
        raise InvalidInput.single("submission_id", "Must be a random UUID (version 4).")
    return value


def _clean_answers(questions: Sequence[Question], answers: Any) -> dict[str, Any]:
    """Validate reported answers; return {key: value} for the answered questions only."""
    if not isinstance(answers, Mapping):
        raise InvalidInput.single("answers", "Give an object mapping question keys to answers.")
    errors: Errors = {}
    by_key = {q.key: q for q in questions}
    for key in answers:
        if key not in by_key:
            add_error(errors, f"answers.{key}", "Unknown question.")
    cleaned: dict[str, Any] = {}
    for q in questions:
        field = f"answers.{q.key}"
        value = answers.get(q.key)
        if value is None:
            if q.is_randomized:
                add_error(errors, field, "This randomized question must be answered.")
            continue
        if q.kind == Question.Kind.YES_NO:
            if not isinstance(value, bool):
                add_error(errors, field, "Must be a boolean (the reported answer).")
                continue
        elif q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY):
            if not isinstance(value, str) or value not in q.options:
                add_error(errors, field, "Must be one of the question's options.")
                continue
        else:  # number
            if not is_finite_number(value):
                add_error(errors, field, "Must be a finite number.")
                continue
            value = float(value)
            if abs(value) > MAX_ABS_NUMBER:  # a question stored before the bounds were capped
                add_error(
                    errors, field, f"Must be between {-MAX_ABS_NUMBER:g} and {MAX_ABS_NUMBER:g}."
                )
                continue
            if not q.min_value <= value <= q.max_value:
                add_error(errors, field, f"Must be between {q.min_value:g} and {q.max_value:g}.")
                continue
        cleaned[q.key] = value
    if errors:
        raise InvalidInput(errors)
    return cleaned


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
        "A different submission with this submission_id was already received.",
        code="duplicate_conflict",
    )


def submission_create(
    *,
    survey: Survey,
    submission_id: Any,
    randomizer: str,
    answers: Mapping[str, Any],
    token: str | None = None,
) -> SubmissionOutcome:
    """Store one respondent's *reported* answers, idempotently, in one transaction.

    Same ``submission_id`` and same body → ``duplicate`` (nothing written); same id, other body →
    409. Invite-only surveys consume the token with a conditional UPDATE (exactly-once under
    concurrency). Nothing here touches Celery or Redis: collecting answers must not depend on them.
    """
    sid = _parse_submission_id(submission_id)
    if randomizer not in Submission.Randomizer.values:
        raise InvalidInput.single("randomizer", "One of: browser, physical.")
    if token is not None and (not isinstance(token, str) or not 0 < len(token) <= 200):
        raise InvalidInput.single("token", "Must be the invitation token string.")
    if survey.status == Survey.Status.DRAFT:
        raise NotFound("No such survey.")
    questions = list(survey.questions.all())
    cleaned = _clean_answers(questions, answers)
    digest = None
    if survey.access == Survey.Access.INVITE:
        if not token:
            raise Conflict("This survey needs an invitation token.", code="token_required")
        digest = invitation_digest(token)
    fingerprint = _fingerprint(survey=survey, randomizer=randomizer, answers=cleaned)
    if not survey.is_accepting():
        # A retry of an accepted submission is answered as such even after the survey closed.
        outcome = _existing_outcome(sid, fingerprint)
        if outcome is not None:
            return outcome
        raise Conflict("This survey is closed.", code="survey_closed")

    submission_params = submission_insert_params(
        sid=sid, survey=survey, randomizer=randomizer, fingerprint=fingerprint, answers=cleaned
    )
    if digest is None and survey.response_cap is None and connection.vendor == "postgresql":
        stored = submission_store_one_statement(submission_params=submission_params)
    else:
        stored = submission_store(survey=survey, submission_params=submission_params, digest=digest)
    if stored:
        # Its own transaction, after the submission's: publishes the batch once k are waiting.
        submissions_publish_if_due(survey=survey)
        return SubmissionOutcome(submission_id=sid, status="accepted")
    # Nothing was written: the id exists (a retry, or a concurrent twin that won), or the survey
    # stopped accepting answers after it was read (e.g. closed while cached).
    outcome = _existing_outcome(sid, fingerprint)
    if outcome is not None:
        return outcome
    from surveys import public_survey_cache

    public_survey_cache.invalidate(slug=survey.slug)
    if not Survey.objects.filter(pk=survey.pk).exclude(status=Survey.Status.DRAFT).exists():
        raise NotFound("No such survey.")
    raise Conflict("This survey is closed.", code="survey_closed")
