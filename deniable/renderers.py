"""Renderers shared by every API: one NaN policy, and CSV through the one writer
(:mod:`deniable.csv_cells`, docs/exports.md).

**NaN policy.** A value that is not a finite number (NaN, +∞, −∞) is *unknown*: it is written as
``null`` in JSON and as an empty cell in CSV, everywhere. JSON has no literal for them (Python's
``json`` would write the non-standard ``NaN``, which browsers' ``JSON.parse`` refuses, and DRF's
strict renderer raises, a 500), and an empty CSV cell is already how every Deniable CSV writes a
missing value, so readers need no new rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer

from deniable import csv_cells

MISSING = csv_cells.MISSING


def finite_or_none(data: Any) -> Any:
    """``data`` with every non-finite float replaced by ``None`` (recursively through mappings,
    lists and tuples); everything else is returned unchanged."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, Mapping):
        return {key: finite_or_none(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite_or_none(value) for value in data]
    return data


class FiniteJSONRenderer(JSONRenderer):
    """DRF's JSON renderer (compact, UTF-8) after :func:`finite_or_none`: NaN/±∞ → ``null``."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return super().render(finite_or_none(data), accepted_media_type, renderer_context)


@dataclass(frozen=True)
class CSVTable:
    """What a view hands the CSV renderer: a header row and the rows of *raw* values (text as
    ``str``, numbers, ``None`` for missing); :mod:`deniable.csv_cells` tags the text cells."""

    header: Sequence[str]
    rows: Iterable[Sequence[csv_cells.Cell]]


def csv_text(table: CSVTable) -> str:
    """The table as RFC 4180 CSV written by :func:`deniable.csv_cells.csv_text`: CRLF line
    ends, minimal quoting, text cells ``'`` + the text, non-finite numbers as empty cells."""
    return csv_cells.csv_text(table.header, table.rows)


class CSVRenderer(BaseRenderer):
    """``text/csv`` (``?format=csv`` or ``Accept: text/csv``): renders a :class:`CSVTable`.

    Anything else (an error body reaching it by mistake) is rendered as text; the negotiation
    mixin sends errors through the JSON renderer anyway."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        text = csv_text(data) if isinstance(data, CSVTable) else data
        if isinstance(text, bytes):
            return text
        return str(text).encode(self.charset)
