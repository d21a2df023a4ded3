"""Reading the audit log: a survey's entries (for its owner) and the site's (for staff), as
JSON rows or CSV (written by the one CSV writer, ``deniable.csv_cells``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import QuerySet

from audit.models import Entry
from deniable import csv_cells

#: The JSON fields of an entry (docs/api.md#audit; DESIGN §8.8); the site log adds the survey.
FIELDS = ("at", "actor", "action", "detail")
SITE_FIELDS = (*FIELDS, "survey")
#: How many entries a page shows (the CSV has them all).
PAGE_ROWS = 500


def entries(*, survey_pk: int | None = None, survey_slug: str | None = None) -> QuerySet[Entry]:
    """Newest first: one survey's (by id: a deleted survey's slug may be reused) or all."""
    qs = Entry.objects.all()
    if survey_pk is not None:
        qs = qs.filter(survey_pk=survey_pk)
    if survey_slug:
        qs = qs.filter(survey_slug=survey_slug)
    return qs.order_by("-at", "-id")


def as_row(entry: Entry, *, site: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "at": entry.at.isoformat(),
        "actor": entry.actor or None,
        "action": entry.action,
        "detail": entry.detail,
    }
    if site:
        row["survey"] = entry.survey_slug or None
    return row


def as_rows(qs: Iterable[Entry], *, site: bool = False) -> list[dict[str, Any]]:
    return [as_row(entry, site=site) for entry in qs]


def csv_chunks(qs: QuerySet[Entry], *, site: bool = False) -> Iterator[str]:
    """The log as CSV: one row per entry, the detail as a JSON object in one cell."""
    header = SITE_FIELDS if site else FIELDS

    def cells(entry: Entry) -> list[csv_cells.Cell]:
        row = as_row(entry, site=site)
        row["detail"] = json.dumps(entry.detail, sort_keys=True)
        return [row[name] for name in header]

    return csv_cells.csv_chunks(header, (cells(e) for e in qs.iterator()))
