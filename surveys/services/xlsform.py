"""XLSForm import: an .xlsx → a draft survey, or one 400 listing every problem by cell
(docs/xlsform.md). The form is read by :mod:`surveys.xlsform`, validated by the survey validator
that validates every ``POST /api/v1/surveys/`` body, and created by :func:`survey_create` — in one
transaction, so a refused form leaves nothing behind."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from deniable.errors import InvalidInput
from surveys import inputs
from surveys.models import Survey
from surveys.services.surveys import survey_create
from surveys.xlsform.parse import Parsed, parse_sheets
from surveys.xlsform.reader import XlsformErrors, read_workbook


def _cell(path: str, where: dict[str, str]) -> tuple[str, str]:
    """The cell an API path came from (the path itself or its nearest recorded parent), and
    what the path adds to it (a design's parameter: ``p_truth``)."""
    found = path
    while found:
        if found in where:
            return where[found], path[len(found) :].lstrip(".")
        cut = max(found.rfind("."), found.rfind("["))
        found = found[:cut] if cut > 0 else ""
    return where.get("", "settings!A1"), ""


def _merge(parsed: Parsed, errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """The reader's problems, then the validator's by cell; a cell the reader already faulted
    keeps its own (clearer) words, and each message appears once."""
    out = {ref: list(messages) for ref, messages in parsed.errors.items()}
    for path, messages in errors.items():
        ref, rest = _cell(path, parsed.where)
        if ref in parsed.errors:
            continue
        for message in messages:
            text = f"{rest}: {message}" if rest else message
            if text not in out.setdefault(ref, []):
                out[ref].append(text)
    return out


@transaction.atomic
def survey_import_xlsform(*, owner: User, data: bytes) -> Survey:
    """A draft survey from an XLSForm's bytes; raises ``InvalidInput`` keyed by cell."""
    try:
        sheets = read_workbook(data)
    except XlsformErrors as exc:
        raise InvalidInput(exc.errors) from None
    parsed = parse_sheets(sheets)
    try:
        spec = inputs.survey_spec(parsed.body)
    except InvalidInput as exc:
        raise InvalidInput(_merge(parsed, exc.errors)) from None
    if parsed.errors:
        raise InvalidInput(parsed.errors)
    try:
        return survey_create(owner=owner, **spec.kwargs())
    except InvalidInput as exc:  # a taken slug: named by its form_id cell
        raise InvalidInput(_merge(parsed, exc.errors)) from None
