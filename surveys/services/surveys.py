"""Surveys: create and update a draft (validating its questions and designs), open and close it.

Every design is validated by ``dpcore.local``; one-sided designs (ε = ∞) are refused. Once open, a
survey's designs are frozen: reports already collected were randomized under them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from deniable.errors import Conflict, InvalidInput
from dpcore import local as rr
from dpcore.central import calibration as calibrate
from dpcore.local import browser as rr_browser
from surveys import designs
from surveys.models import Question, Survey
from surveys.services.validation import (
    MAX_ABS_NUMBER,
    Errors,
    add_error,
    is_finite_number,
    text_problem,
)

KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_QUESTIONS = 100
MIN_OPTIONS = 2
MAX_OPTIONS = 50
MAX_OPTION_LENGTH = 200
TITLE_MAX = 200


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
        add_error(errors, field, f"Give a list of {MIN_OPTIONS} to {MAX_OPTIONS} options.")
        return []
    options: list[str] = []
    for index, option in enumerate(raw):
        if not isinstance(option, str) or not option.strip():
            add_error(errors, f"{field}[{index}]", "Each option must be a non-empty string.")
            continue
        option = option.strip()
        if text_problem(option):
            add_error(errors, f"{field}[{index}]", text_problem(option) or "")
            continue
        if len(option) > MAX_OPTION_LENGTH:
            add_error(errors, f"{field}[{index}]", f"At most {MAX_OPTION_LENGTH} characters.")
            continue
        options.append(option)
    if len(raw) < MIN_OPTIONS or len(raw) > MAX_OPTIONS:
        add_error(errors, field, f"Give {MIN_OPTIONS} to {MAX_OPTIONS} options (got {len(raw)}).")
    if len(set(options)) != len(options):
        add_error(errors, field, "Options must be unique.")
    return options


def _clean_design(kind: str, raw: Any, options: list[str], field: str, errors: Errors) -> dict:
    """Validate a design spec with ``dpcore.local``; return its canonical spec."""
    if raw is None:
        raw = designs.default_design_spec(kind)
    if not isinstance(raw, Mapping):
        add_error(errors, field, "The design must be an object with a 'name'.")
        return {}
    expected: tuple[str, ...] = ("k_rr",)
    if kind == "yes_no":
        expected = (
            "forced_response",
            "warner",
            "unrelated_question",
            "two_probability",
            "crosswise",
        )
    name = raw.get("name")
    if name not in expected:
        add_error(
            errors, f"{field}.name", f"For a {kind} question use one of: {', '.join(expected)}."
        )
        return {}
    if kind == "choice" and len(options) < MIN_OPTIONS:
        return {}  # the options error is already reported; k is unknown
    try:
        design = designs.design_for(kind, raw, k=len(options) if kind == "choice" else None)
    except rr.DesignError as exc:
        param = getattr(exc, "field", "") or ""
        message = getattr(exc, "message", None) or str(exc)
        add_error(errors, f"{field}.{param}" if param else field, message)
        return {}
    epsilon = float(design.epsilon)
    if not math.isfinite(epsilon) or not getattr(design, "is_private", True):
        add_error(
            errors,
            field,
            "This design is not differentially private (ε = ∞): some reported answer reveals "
            "the true one. Give every answer a non-zero chance of being reported.",
        )
        return {}
    try:
        # The local-ε cap, and the page's integer thresholds: a design the respondent's browser
        # cannot run exactly is refused here, never approximated there (dpcore.local.browser).
        rr_browser.check_epsilon_cap(design)
        rr_browser.browser_plan(design)
    except rr.DesignError as exc:
        add_error(errors, f"{field}.{exc.field}", exc.message)
        return {}
    return dict(design.to_spec())


def _clean_questions(raw: Any, errors: Errors) -> list[_CleanQuestion]:
    if not isinstance(raw, list | tuple):
        add_error(errors, "questions", "Give a list of questions.")
        return []
    if len(raw) > MAX_QUESTIONS:
        add_error(errors, "questions", f"At most {MAX_QUESTIONS} questions.")
        return []
    cleaned: list[_CleanQuestion] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        f = f"questions[{index}]"
        if not isinstance(item, Mapping):
            add_error(errors, f, "Each question must be an object.")
            continue
        key = item.get("key")
        if not isinstance(key, str) or not KEY_RE.match(key):
            add_error(
                errors, f"{f}.key", "Use a slug: letters, digits, - or _ (at most 64 characters)."
            )
        elif key in seen:
            add_error(errors, f"{f}.key", f"Duplicate key {key!r}: keys must be unique.")
        else:
            seen.add(key)
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            add_error(errors, f"{f}.text", "This field is required.")
            text = ""
        elif text_problem(text):
            add_error(errors, f"{f}.text", text_problem(text) or "")
            text = ""
        kind = item.get("kind")
        if kind not in Question.Kind.values:
            add_error(errors, f"{f}.kind", f"One of: {', '.join(Question.Kind.values)}.")
            continue
        options: list[str] = []
        design: dict[str, Any] = {}
        min_value = max_value = None
        if kind in ("choice", "category"):
            options = _clean_options(item.get("options"), f"{f}.options", errors)
        elif item.get("options") not in (None, []):
            add_error(errors, f"{f}.options", f"A {kind} question has no options.")
        if kind in designs.RANDOMIZED_KINDS:
            design = _clean_design(kind, item.get("design"), options, f"{f}.design", errors)
        elif item.get("design") not in (None, {}):
            add_error(
                errors, f"{f}.design", f"A {kind} question is asked directly and has no design."
            )
        if kind == "number":
            lo, hi = item.get("min"), item.get("max")
            ok = True
            for name, value in (("min", lo), ("max", hi)):
                if not is_finite_number(value):
                    add_error(errors, f"{f}.{name}", "A finite number is required.")
                    ok = False
                elif abs(value) > MAX_ABS_NUMBER:
                    add_error(
                        errors,
                        f"{f}.{name}",
                        f"Must lie between {-MAX_ABS_NUMBER:g} and {MAX_ABS_NUMBER:g}.",
                    )
                    ok = False
            if ok and not lo < hi:
                add_error(errors, f"{f}.max", "max must be greater than min.")
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


def _clean_closes_at(raw: Any, errors: Errors) -> datetime | None:
    """An ISO 8601 date-time, made aware (UTC when naive) and representable in UTC.

    ``parse_datetime`` raises ValueError for a well-formed but impossible date ("2024-13-45"), and
    "9999-12-31T23:59:59-23:59" parses but is past year 9999 in UTC (OverflowError on conversion,
    save or comparison): both were 500s. Either is a 400 naming ``closes_at``.
    """
    if raw is None:
        return None
    closes_at = raw
    if isinstance(raw, str):
        try:
            closes_at = parse_datetime(raw) if len(raw) <= 64 else None
        except ValueError:
            closes_at = None
    if not isinstance(closes_at, datetime):
        add_error(errors, "closes_at", "An ISO 8601 date-time is required.")
        return None
    try:
        if timezone.is_naive(closes_at):
            closes_at = timezone.make_aware(closes_at, UTC)
        closes_at = closes_at.astimezone(UTC)
    except (OverflowError, ValueError):
        add_error(errors, "closes_at", "Must be a date-time between years 1 and 9999 in UTC.")
        return None
    return closes_at


def _clean_survey_fields(data: Mapping[str, Any], errors: Errors, *, partial: bool) -> dict:
    """Validate the survey-level fields present in ``data``; return model field values."""
    out: dict[str, Any] = {}
    if "title" in data or not partial:
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            add_error(errors, "title", "This field is required.")
        elif text_problem(title):
            add_error(errors, "title", text_problem(title) or "")
        elif len(title) > TITLE_MAX:
            add_error(errors, "title", f"At most {TITLE_MAX} characters.")
        else:
            out["title"] = title.strip()
    if "description" in data:
        description = data.get("description")
        if description is None:
            description = ""
        if not isinstance(description, str):
            add_error(errors, "description", "Must be a string.")
        elif text_problem(description):
            add_error(errors, "description", text_problem(description) or "")
        else:
            out["description"] = description
    if "access" in data:
        if data["access"] not in Survey.Access.values:
            add_error(errors, "access", f"One of: {', '.join(Survey.Access.values)}.")
        else:
            out["access"] = data["access"]
    if "closes_at" in data:
        closes_at = _clean_closes_at(data["closes_at"], errors)
        if "closes_at" not in errors:
            out["closes_at"] = closes_at
    for name in ("response_cap", "planned_n"):
        if name in data:
            value = data[name]
            if value is None and name == "response_cap":
                out[name] = None
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                add_error(errors, name, "A positive integer is required.")
            elif value > 2_000_000_000:
                add_error(errors, name, "Too large.")
            else:
                out[name] = value
    if "budget" in data or not partial:
        budget = data.get("budget")
        if budget is None:
            budget = {}
        if not isinstance(budget, Mapping):
            add_error(errors, "budget", 'Give {"epsilon": …, "delta": …}.')
        else:
            eps = budget.get("epsilon", settings.DENIABLE_DEFAULT_BUDGET_EPSILON)
            delta = budget.get("delta", settings.DENIABLE_DEFAULT_BUDGET_DELTA)
            if not is_finite_number(eps) or eps <= 0:
                add_error(errors, "budget.epsilon", "A finite number > 0 is required.")
            else:
                out["budget_epsilon"] = float(eps)
            if not is_finite_number(delta) or not 0 < delta < 1:
                add_error(errors, "budget.delta", "A number strictly between 0 and 1 is required.")
            elif not calibrate.MIN_DELTA <= delta <= calibrate.MAX_DELTA:
                add_error(
                    errors,
                    "budget.delta",
                    f"Must lie between {calibrate.MIN_DELTA:g} and {calibrate.MAX_DELTA:g} "
                    "(δ is the chance the guarantee fails; keep it well below 1/respondents).",
                )
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

    ``data`` is the POST /api/v1/surveys/ body. Every design is validated by ``dpcore.local``;
    one-sided designs (ε = ∞) are refused. ``slug`` is for fixtures such as the demo survey.
    """
    errors: Errors = {}
    fields = _clean_survey_fields(data, errors, partial=False)
    questions = _clean_questions(data.get("questions", []), errors)
    if slug is not None and (not KEY_RE.match(slug) or Survey.objects.filter(slug=slug).exists()):
        add_error(errors, "slug", "Invalid or taken slug.")
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
    """open → closed: stop accepting submissions (estimates and exports remain).

    The unsealed tail (< k submissions) is re-written in key order but not published: the last
    change of the estimates still aggregates ≥ k reports; releases count the tail."""
    from surveys.services.batches import submissions_shuffle_tail

    closed = _survey_transition(
        survey=survey, source=Survey.Status.OPEN, target=Survey.Status.CLOSED, verb="close"
    )
    submissions_shuffle_tail(survey=closed)
    return closed
