"""Writes: surveys, invitations and submissions.

Every public function is ``<noun>_<verb>``, keyword-only and transactional. Services raise the
domain errors of :mod:`deniable.errors` (never DRF exceptions), so pages and the API share them.

Privacy invariants enforced here (DESIGN.md §3):

* only *reported* answers are accepted and stored — the API has no field for a true answer;
* a submission stores a random client UUID, the randomizer and the date; nothing about the client;
* invitation tokens are stored only as HMAC-SHA256 digests and consumed with one conditional
  ``UPDATE``, so a token is accepted exactly once even under concurrent posts;
* tallies are upserted in the submission's own transaction with one statement, so estimates never
  read reports and a rejected submission leaves no trace.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import math
import re
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from deniable.errors import Conflict, InvalidInput, NotFound
from privacy import rr
from surveys import designs
from surveys.models import (
    TALLY_SHARDS,
    Invitation,
    Question,
    Report,
    Submission,
    Survey,
    Tally,
)

KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_QUESTIONS = 100
MIN_OPTIONS = 2
MAX_OPTIONS = 50
MAX_OPTION_LENGTH = 200
MAX_INVITATIONS = 10_000
TITLE_MAX = 200

Errors = dict[str, list[str]]


def _add(errors: Errors, field: str, message: str) -> None:
    errors.setdefault(field, []).append(message)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite_number(value: Any) -> bool:
    """A JSON number that is a finite float: not NaN/±∞, and not an int too large for a float
    (``math.isfinite(10**400)`` raises OverflowError)."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


# --- Surveys ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CleanQuestion:
    key: str
    text: str
    kind: str
    design: dict[str, Any]
    options: list[str]
    min_value: float | None
    max_value: float | None


def _clean_options(raw: Any, field: str, errors: Errors) -> list[str]:
    if not isinstance(raw, list | tuple):
        _add(errors, field, f"Give a list of {MIN_OPTIONS} to {MAX_OPTIONS} options.")
        return []
    options: list[str] = []
    for index, option in enumerate(raw):
        if not isinstance(option, str) or not option.strip():
            _add(errors, f"{field}[{index}]", "Each option must be a non-empty string.")
            continue
        option = option.strip()
        if len(option) > MAX_OPTION_LENGTH:
            _add(errors, f"{field}[{index}]", f"At most {MAX_OPTION_LENGTH} characters.")
            continue
        options.append(option)
    if len(raw) < MIN_OPTIONS or len(raw) > MAX_OPTIONS:
        _add(errors, field, f"Give {MIN_OPTIONS} to {MAX_OPTIONS} options (got {len(raw)}).")
    if len(set(options)) != len(options):
        _add(errors, field, "Options must be unique.")
    return options


def _clean_design(kind: str, raw: Any, options: list[str], field: str, errors: Errors) -> dict:
    """Validate a design spec with ``privacy.rr``; return its canonical spec."""
    if raw is None:
        raw = designs.default_design_spec(kind)
    if not isinstance(raw, Mapping):
        _add(errors, field, "The design must be an object with a 'name'.")
        return {}
    expected: tuple[str, ...] = ("k_rr",)
    if kind == "yes_no":
        expected = ("forced_response", "warner", "unrelated_question")
    name = raw.get("name")
    if name not in expected:
        _add(errors, f"{field}.name", f"For a {kind} question use one of: {', '.join(expected)}.")
        return {}
    if kind == "choice" and len(options) < MIN_OPTIONS:
        return {}  # the options error is already reported; k is unknown
    try:
        design = designs.design_for(kind, raw, k=len(options) if kind == "choice" else None)
    except rr.DesignError as exc:
        param = getattr(exc, "field", "") or ""
        message = getattr(exc, "message", None) or str(exc)
        _add(errors, f"{field}.{param}" if param else field, message)
        return {}
    epsilon = float(design.epsilon)
    if not math.isfinite(epsilon) or not getattr(design, "is_private", True):
        _add(
            errors,
            field,
            "This design is not differentially private (ε = ∞): some reported answer reveals "
            "the true one. Give every answer a non-zero chance of being reported.",
        )
        return {}
    return dict(design.to_spec())


def _clean_questions(raw: Any, errors: Errors) -> list[_CleanQuestion]:
    if not isinstance(raw, list | tuple):
        _add(errors, "questions", "Give a list of questions.")
        return []
    if len(raw) > MAX_QUESTIONS:
        _add(errors, "questions", f"At most {MAX_QUESTIONS} questions.")
        return []
    cleaned: list[_CleanQuestion] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        f = f"questions[{index}]"
        if not isinstance(item, Mapping):
            _add(errors, f, "Each question must be an object.")
            continue
        key = item.get("key")
        if not isinstance(key, str) or not KEY_RE.match(key):
            _add(errors, f"{f}.key", "Use a slug: letters, digits, - or _ (at most 64 characters).")
        elif key in seen:
            _add(errors, f"{f}.key", f"Duplicate key {key!r}: keys must be unique.")
        else:
            seen.add(key)
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            _add(errors, f"{f}.text", "This field is required.")
            text = ""
        kind = item.get("kind")
        if kind not in Question.Kind.values:
            _add(errors, f"{f}.kind", f"One of: {', '.join(Question.Kind.values)}.")
            continue
        options: list[str] = []
        design: dict[str, Any] = {}
        min_value = max_value = None
        if kind in ("choice", "category"):
            options = _clean_options(item.get("options"), f"{f}.options", errors)
        elif item.get("options") not in (None, []):
            _add(errors, f"{f}.options", f"A {kind} question has no options.")
        if kind in designs.RANDOMIZED_KINDS:
            design = _clean_design(kind, item.get("design"), options, f"{f}.design", errors)
        elif item.get("design") not in (None, {}):
            _add(errors, f"{f}.design", f"A {kind} question is asked directly and has no design.")
        if kind == "number":
            lo, hi = item.get("min"), item.get("max")
            ok = True
            for name, value in (("min", lo), ("max", hi)):
                if not _is_finite_number(value):
                    _add(errors, f"{f}.{name}", "A finite number is required.")
                    ok = False
            if ok and not lo < hi:
                _add(errors, f"{f}.max", "max must be greater than min.")
            if ok:
                min_value, max_value = float(lo), float(hi)
        cleaned.append(
            _CleanQuestion(
                key=key if isinstance(key, str) else "",
                text=text.strip(),
                kind=kind,
                design=design,
                options=options,
                min_value=min_value,
                max_value=max_value,
            )
        )
    return cleaned


def _clean_survey_fields(data: Mapping[str, Any], errors: Errors, *, partial: bool) -> dict:
    """Validate the survey-level fields present in ``data``; return model field values."""
    out: dict[str, Any] = {}
    if "title" in data or not partial:
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            _add(errors, "title", "This field is required.")
        elif len(title) > TITLE_MAX:
            _add(errors, "title", f"At most {TITLE_MAX} characters.")
        else:
            out["title"] = title.strip()
    if "description" in data:
        description = data.get("description")
        if description is None:
            description = ""
        if not isinstance(description, str):
            _add(errors, "description", "Must be a string.")
        else:
            out["description"] = description
    if "access" in data:
        if data["access"] not in Survey.Access.values:
            _add(errors, "access", f"One of: {', '.join(Survey.Access.values)}.")
        else:
            out["access"] = data["access"]
    if "closes_at" in data:
        closes_at = data["closes_at"]
        if isinstance(closes_at, str):
            from django.utils.dateparse import parse_datetime

            parsed = parse_datetime(closes_at)
            closes_at = parsed if parsed is not None else closes_at
        if closes_at is not None and not isinstance(closes_at, datetime):
            _add(errors, "closes_at", "An ISO 8601 date-time is required.")
        else:
            if closes_at is not None and timezone.is_naive(closes_at):
                closes_at = timezone.make_aware(closes_at, UTC)
            out["closes_at"] = closes_at
    for name in ("response_cap", "planned_n"):
        if name in data:
            value = data[name]
            if value is None and name == "response_cap":
                out[name] = None
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                _add(errors, name, "A positive integer is required.")
            elif value > 2_000_000_000:
                _add(errors, name, "Too large.")
            else:
                out[name] = value
    if "budget" in data or not partial:
        budget = data.get("budget")
        if budget is None:
            budget = {}
        if not isinstance(budget, Mapping):
            _add(errors, "budget", 'Give {"epsilon": …, "delta": …}.')
        else:
            eps = budget.get("epsilon", settings.DENIABLE_DEFAULT_BUDGET_EPSILON)
            delta = budget.get("delta", settings.DENIABLE_DEFAULT_BUDGET_DELTA)
            if not _is_finite_number(eps) or eps <= 0:
                _add(errors, "budget.epsilon", "A finite number > 0 is required.")
            else:
                out["budget_epsilon"] = float(eps)
            if not _is_finite_number(delta) or not 0 < delta < 1:
                _add(errors, "budget.delta", "A number strictly between 0 and 1 is required.")
            else:
                out["budget_delta"] = float(delta)
    return out


def _questions_replace(*, survey: Survey, questions: Sequence[_CleanQuestion]) -> None:
    survey.questions.all().delete()
    Question.objects.bulk_create(
        [
            Question(
                survey=survey,
                key=q.key,
                position=position,
                text=q.text,
                kind=q.kind,
                design=q.design,
                options=q.options,
                min_value=q.min_value,
                max_value=q.max_value,
            )
            for position, q in enumerate(questions)
        ]
    )


def survey_create(
    *, owner: AbstractBaseUser, data: Mapping[str, Any], slug: str | None = None
) -> Survey:
    """Create a draft survey and its questions in one transaction.

    ``data`` is the POST /api/v1/surveys/ body. Every design is validated by ``privacy.rr``;
    one-sided designs (ε = ∞) are refused. ``slug`` is for fixtures such as the demo survey.
    """
    errors: Errors = {}
    fields = _clean_survey_fields(data, errors, partial=False)
    questions = _clean_questions(data.get("questions", []), errors)
    if slug is not None and (not KEY_RE.match(slug) or Survey.objects.filter(slug=slug).exists()):
        _add(errors, "slug", "Invalid or taken slug.")
    if errors:
        raise InvalidInput(errors)
    with transaction.atomic():
        survey = Survey(owner=owner, **fields)
        if slug is not None:
            survey.slug = slug
        survey.save()
        _questions_replace(survey=survey, questions=questions)
    return survey


def survey_update(*, survey: Survey, data: Mapping[str, Any]) -> Survey:
    """Update a *draft* survey; ``questions``, when given, replaces all questions.

    Once open, designs are frozen: reports already collected were randomized under them.
    """
    errors: Errors = {}
    fields = _clean_survey_fields(data, errors, partial=True)
    questions = _clean_questions(data["questions"], errors) if "questions" in data else None
    if errors:
        raise InvalidInput(errors)
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != Survey.Status.DRAFT:
            raise Conflict(
                "Only draft surveys can be edited: the designs of an open survey are fixed.",
                code="not_draft",
            )
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.save()
        if questions is not None:
            _questions_replace(survey=locked, questions=questions)
    survey.refresh_from_db()
    return survey


def _survey_transition(*, survey: Survey, source: str, target: str, verb: str) -> Survey:
    with transaction.atomic():
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        if locked.status != source:
            raise Conflict(
                f"Cannot {verb} a survey that is {locked.status} (only a {source} one).",
                code="invalid_transition",
            )
        if target == Survey.Status.OPEN and not locked.questions.exists():
            raise Conflict("Add at least one question before opening.", code="no_questions")
        locked.status = target
        locked.save(update_fields=["status"])
    survey.status = target
    return survey


def survey_open(*, survey: Survey) -> Survey:
    """draft → open: start accepting submissions."""
    return _survey_transition(
        survey=survey, source=Survey.Status.DRAFT, target=Survey.Status.OPEN, verb="open"
    )


def survey_close(*, survey: Survey) -> Survey:
    """open → closed: stop accepting submissions (estimates and exports remain)."""
    return _survey_transition(
        survey=survey, source=Survey.Status.OPEN, target=Survey.Status.CLOSED, verb="close"
    )


# --- Invitations --------------------------------------------------------------------------------


def invitation_digest(token: str) -> str:
    """HMAC-SHA256 of a token under ``INVITATION_TOKEN_KEY``: the only form ever stored."""
    key = settings.INVITATION_TOKEN_KEY.encode()
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def invitations_create(*, survey: Survey, count: int) -> list[str]:
    """Create ``count`` one-time tokens for an invite-only survey; the tokens are returned once."""
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_INVITATIONS:
        raise InvalidInput.single("count", f"A whole number from 1 to {MAX_INVITATIONS}.")
    if survey.access != Survey.Access.INVITE:
        raise Conflict(
            "This survey is open to anyone with the link; set access to 'invite' to use "
            "invitation tokens.",
            code="not_invite_only",
        )
    if survey.status == Survey.Status.CLOSED:
        raise Conflict("The survey is closed.", code="survey_closed")
    tokens = [secrets.token_urlsafe(16) for _ in range(count)]
    with transaction.atomic():
        Invitation.objects.bulk_create(
            [Invitation(survey=survey, digest=invitation_digest(t)) for t in tokens],
            batch_size=1000,
        )
    return tokens


# --- Submissions --------------------------------------------------------------------------------


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
            _add(errors, f"answers.{key}", "Unknown question.")
    cleaned: dict[str, Any] = {}
    for q in questions:
        field = f"answers.{q.key}"
        value = answers.get(q.key)
        if value is None:
            if q.is_randomized:
                _add(errors, field, "This randomized question must be answered.")
            continue
        if q.kind == Question.Kind.YES_NO:
            if not isinstance(value, bool):
                _add(errors, field, "Must be a boolean (the reported answer).")
                continue
        elif q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY):
            if not isinstance(value, str) or value not in q.options:
                _add(errors, field, "Must be one of the question's options.")
                continue
        else:  # number
            if not _is_finite_number(value):
                _add(errors, field, "Must be a finite number.")
                continue
            value = float(value)
            if not q.min_value <= value <= q.max_value:
                _add(errors, field, f"Must be between {q.min_value:g} and {q.max_value:g}.")
                continue
        cleaned[q.key] = value
    if errors:
        raise InvalidInput(errors)
    return cleaned


def _fingerprint(*, survey: Survey, randomizer: str, digest: str | None, answers: dict) -> str:
    """SHA-256 of a canonical JSON of what the submission says (for idempotent retries)."""
    canonical = json.dumps(
        {"survey": survey.pk, "randomizer": randomizer, "token": digest, "answers": answers},
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


def _tally_rows(
    survey: Survey, questions: Sequence[Question], answers: dict[str, Any], shard: int
) -> list[tuple]:
    """The counter cells one submission increments, sorted (fixed lock order → no deadlocks)."""
    cells: list[tuple[str, str, float]] = [("", "", 0.0)]  # respondents
    for q in questions:
        if q.key not in answers:
            continue
        value = answers[q.key]
        if q.kind == Question.Kind.YES_NO:
            cells.append((q.key, "yes" if value else "no", 0.0))
        elif q.kind == Question.Kind.NUMBER:
            cells.append((q.key, "", float(value)))
        else:
            cells.append((q.key, value, 0.0))
    rows: list[tuple] = []
    for key, value, number in cells:
        rows.append((survey.pk, key, value, "", "", shard, 1, number, number * number))
    for g in questions:
        if g.kind != Question.Kind.CATEGORY or g.key not in answers:
            continue
        group_value = answers[g.key]
        for key, value, number in cells:
            if key == g.key:
                continue
            rows.append((survey.pk, key, value, g.key, group_value, shard, 1, number, number**2))
    rows.sort(key=lambda r: (r[1], r[2], r[3], r[4]))
    return rows


def _tallies_upsert(rows: Sequence[tuple]) -> None:
    """One ``INSERT … ON CONFLICT DO UPDATE`` for all cells (PostgreSQL and SQLite ≥ 3.24)."""
    qn = connection.ops.quote_name
    table = qn(Tally._meta.db_table)
    columns = ("survey_id", "question_key", "value", "group_key", "group_value", "shard",
               "count", "total", "total_sq")
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    conflict = ", ".join(qn(c) for c in columns[:6])
    # Identifiers come from model metadata; every value is a query parameter.
    sql = (
        f"INSERT INTO {table} ({', '.join(qn(c) for c in columns)}) VALUES {placeholders} "  # noqa: S608
        f"ON CONFLICT ({conflict}) DO UPDATE SET "
        f"{qn('count')} = {table}.{qn('count')} + EXCLUDED.{qn('count')}, "
        f"{qn('total')} = {table}.{qn('total')} + EXCLUDED.{qn('total')}, "
        f"{qn('total_sq')} = {table}.{qn('total_sq')} + EXCLUDED.{qn('total_sq')}"
    )
    params = [value for row in rows for value in row]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _report_rows(
    sid: uuid.UUID, questions: Sequence[Question], answers: dict
) -> list[tuple[uuid.UUID, uuid.UUID, int, bool | None, str | None, float | None]]:
    """(id, submission_id, question_id, value_bool, value_text, value_number) per answer."""
    rows = []
    for q in questions:
        if q.key not in answers:
            continue
        value = answers[q.key]
        b = t = n = None
        if q.kind == Question.Kind.YES_NO:
            b = value
        elif q.kind == Question.Kind.NUMBER:
            n = value
        else:
            t = value
        rows.append((uuid.uuid4(), sid, q.pk, b, t, n))
    return rows


_REPORT_COLUMNS = ("id", "submission_id", "question_id", "value_bool", "value_text", "value_number")
_TALLY_COLUMNS = ("survey_id", "question_key", "value", "group_key", "group_value", "shard",
                  "count", "total", "total_sq")  # fmt: skip
# PostgreSQL array types of the one-statement path: rows travel as one array per column, so the
# statement text and its 21 parameters are the same for every survey (parsed and planned once per
# connection) instead of one placeholder per value.
_REPORT_TYPES = ("uuid", "bigint", "boolean", "varchar", "double precision")
_TALLY_TYPES = ("bigint", "varchar", "varchar", "varchar", "varchar", "integer", "bigint",
                "double precision", "double precision")  # fmt: skip
_SUBMISSION_TYPES = ("uuid", "varchar", "date", "varchar", "bigint", "varchar", "timestamptz")


def _submission_insert_sql(types: Sequence[str] | None = None) -> str:
    """INSERT the submission only if its survey still accepts answers and its id is new.

    The survey may come from a per-process cache (``selectors.survey_get_public_cached``), so
    the authoritative "is it open?" check is this statement's WHERE: closing a survey takes
    effect at once. ``ON CONFLICT DO NOTHING`` replaces the look-up-then-insert (and its
    savepoint): a retried id inserts nothing and is answered by :func:`_existing_outcome`.
    """
    qn = connection.ops.quote_name
    sub, srv = qn(Submission._meta.db_table), qn(Survey._meta.db_table)
    p = [f"%s::{t}" for t in types] if types else ["%s"] * 7
    return (
        f"INSERT INTO {sub} ({qn('id')}, {qn('survey_id')}, {qn('randomizer')}, "  # noqa: S608
        f"{qn('submitted_on')}, {qn('fingerprint')}) "
        f"SELECT {p[0]}, s.{qn('id')}, {p[1]}, {p[2]}, {p[3]} FROM {srv} s "
        f"WHERE s.{qn('id')} = {p[4]} AND s.{qn('status')} = {p[5]} "
        f"AND (s.{qn('closes_at')} IS NULL OR s.{qn('closes_at')} > {p[6]}) "
        f"ON CONFLICT ({qn('id')}) DO NOTHING"
    )


def _submission_params(
    *, sid: uuid.UUID, survey: Survey, randomizer: str, fingerprint: str
) -> list[Any]:
    ops = connection.ops
    uuid_field = Submission._meta.pk
    return [
        uuid_field.get_db_prep_value(sid, connection),
        randomizer,
        ops.adapt_datefield_value(timezone.localdate()),
        fingerprint,
        survey.pk,
        Survey.Status.OPEN,
        ops.adapt_datetimefield_value(timezone.now()),
    ]


def _reports_insert(rows: Sequence[tuple]) -> None:
    """All of a submission's reports in ONE multi-row INSERT (no model instances)."""
    if not rows:
        return
    qn = connection.ops.quote_name
    prep = Report._meta.pk.get_db_prep_value
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(_REPORT_COLUMNS)) + ")"] * len(rows))
    params: list[Any] = []
    for rid, sid, qid, b, t, n in rows:
        params += [prep(rid, connection), prep(sid, connection), qid, b, t, n]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {qn(Report._meta.db_table)} "  # noqa: S608 - identifiers from metadata
            f"({', '.join(qn(c) for c in _REPORT_COLUMNS)}) VALUES {placeholders}",
            params,
        )


def _unnest(types: Sequence[str]) -> str:
    return "unnest(" + ", ".join(f"%s::{t}[]" for t in types) + ")"


def _columns(rows: Sequence[tuple], width: int) -> list[list[Any]]:
    return [[row[i] for row in rows] for i in range(width)] if rows else [[]] * width


@functools.cache
def _one_statement_sql() -> str:
    qn = connection.ops.quote_name
    rep, tally = qn(Report._meta.db_table), qn(Tally._meta.db_table)
    conflict = ", ".join(qn(c) for c in _TALLY_COLUMNS[:6])
    # Identifiers come from model metadata; every value is a query parameter.
    return (
        f"WITH sub AS ({_submission_insert_sql(_SUBMISSION_TYPES)} RETURNING {qn('id')}), "  # noqa: S608
        f"rep AS (INSERT INTO {rep} ({', '.join(qn(c) for c in _REPORT_COLUMNS)}) "
        f"SELECT r.id, sub.{qn('id')}, r.q, r.b, r.t, r.n FROM sub, "
        f"{_unnest(_REPORT_TYPES)} AS r(id, q, b, t, n)) "
        f"INSERT INTO {tally} ({', '.join(qn(c) for c in _TALLY_COLUMNS)}) "
        f"SELECT * FROM {_unnest(_TALLY_TYPES)} AS v WHERE EXISTS (SELECT 1 FROM sub) "
        f"ON CONFLICT ({conflict}) DO UPDATE SET "
        f"{qn('count')} = {tally}.{qn('count')} + EXCLUDED.{qn('count')}, "
        f"{qn('total')} = {tally}.{qn('total')} + EXCLUDED.{qn('total')}, "
        f"{qn('total_sq')} = {tally}.{qn('total_sq')} + EXCLUDED.{qn('total_sq')}"
    )


def _submission_store_one_statement(
    *, submission_params: list[Any], reports: Sequence[tuple], tallies: Sequence[tuple]
) -> bool:
    """PostgreSQL, open-access surveys without a cap: submission, reports and tallies in ONE
    statement (data-modifying CTEs), so one round trip and one implicit transaction — no
    BEGIN/SAVEPOINT/COMMIT statements. Reports and tallies are written only if the submission
    row was (``FROM sub`` / ``EXISTS (… sub)``); ``unnest`` keeps the rows' (sorted) order, so
    tally locks are still taken in a fixed order. True if it was stored.

    It runs on a psycopg cursor with server-side binding and ``prepare=True`` (Django's own
    cursors bind client-side): the constant statement is parsed and planned once per connection,
    and its parameters are sent as they are instead of being spliced into the SQL text.
    """
    import psycopg

    report_columns = _columns([(r[0], r[2], r[3], r[4], r[5]) for r in reports], 5)
    params = [*submission_params, *report_columns, *_columns(tallies, len(_TALLY_COLUMNS))]
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(_one_statement_sql(), params, prepare=True)
        # Every stored submission increments at least the respondents cell.
        return cursor.rowcount > 0


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
    fingerprint = _fingerprint(
        survey=survey, randomizer=randomizer, digest=digest, answers=cleaned
    )
    if not survey.is_accepting():
        # A retry of an accepted submission is answered as such even after the survey closed.
        outcome = _existing_outcome(sid, fingerprint)
        if outcome is not None:
            return outcome
        raise Conflict("This survey is closed.", code="survey_closed")

    submission_params = _submission_params(
        sid=sid, survey=survey, randomizer=randomizer, fingerprint=fingerprint
    )
    reports = _report_rows(sid, questions, cleaned)
    tallies = _tally_rows(survey, questions, cleaned, secrets.randbelow(TALLY_SHARDS))
    if digest is None and survey.response_cap is None and connection.vendor == "postgresql":
        stored = _submission_store_one_statement(
            submission_params=submission_params, reports=reports, tallies=tallies
        )
    else:
        stored = _submission_store(
            survey=survey, submission_params=submission_params, digest=digest,
            reports=reports, tallies=tallies,
        )  # fmt: skip
    if stored:
        return SubmissionOutcome(submission_id=sid, status="accepted")
    # Nothing was written: the id exists (a retry, or a concurrent twin that won), or the survey
    # stopped accepting answers after it was read (e.g. closed while cached).
    outcome = _existing_outcome(sid, fingerprint)
    if outcome is not None:
        return outcome
    from surveys.selectors import survey_public_cache_evict

    survey_public_cache_evict(slug=survey.slug)
    if not Survey.objects.filter(pk=survey.pk).exclude(status=Survey.Status.DRAFT).exists():
        raise NotFound("No such survey.")
    raise Conflict("This survey is closed.", code="survey_closed")


def _submission_store(
    *,
    survey: Survey,
    submission_params: list[Any],
    digest: str | None,
    reports: Sequence[tuple],
    tallies: Sequence[tuple],
) -> bool:
    """The general path (invitations, response caps, SQLite): one transaction, no savepoint.
    True if stored; False if the conditional insert wrote nothing (see the caller)."""
    with transaction.atomic():
        if survey.response_cap is not None:
            # Serialize submissions of capped surveys on the survey row, then count.
            Survey.objects.select_for_update().filter(pk=survey.pk).first()
            respondents = _respondents(survey)
            if respondents >= survey.response_cap:
                raise Conflict(
                    "This survey has reached its number of responses.",
                    code="response_cap_reached",
                )
        with connection.cursor() as cursor:
            cursor.execute(_submission_insert_sql(), submission_params)
            if cursor.rowcount != 1:
                return False
        if digest is not None:
            used = Invitation.objects.filter(survey=survey, digest=digest, used=False).update(
                used=True
            )
            if used != 1:
                if Invitation.objects.filter(survey=survey, digest=digest).exists():
                    raise Conflict("This invitation has already been used.", code="token_used")
                raise InvalidInput.single("token", "Unknown invitation token.")
        _reports_insert(reports)
        _tallies_upsert(tallies)
    return True


def _respondents(survey: Survey) -> int:
    from surveys.selectors import survey_respondent_count

    return survey_respondent_count(survey=survey)
