"""Renderers shared by every API: one NaN policy, one CSV writer (docs/exports.md).

**NaN policy.** A value that is not a finite number (NaN, +∞, −∞) is *unknown*: it is written as
``null`` in JSON and as an empty cell in CSV, everywhere. JSON has no literal for them (Python's
``json`` would write the non-standard ``NaN``, which browsers' ``JSON.parse`` refuses, and DRF's
strict renderer raises, a 500), and an empty CSV cell is already how every Deniable CSV writes a
missing value, so readers need no new rule.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer

MISSING = ""


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


def csv_value(value: Any) -> Any:
    """A cell as the CSV renderer writes it: None and non-finite floats are an empty cell."""
    if value is None:
        return MISSING
    if isinstance(value, float) and not math.isfinite(value):
        return MISSING
    return value


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
    """What a view hands the CSV renderer: a header row and the rows, cells already shaped by
    the output serializer (text cells tagged per ``surveys.csv_cells`` where the format asks)."""

    header: Sequence[str]
    rows: Iterable[Sequence[Any]]


def csv_text(table: CSVTable) -> str:
    """The table as RFC 4180 CSV: CRLF line ends (with a bare LF Python's csv module leaves a
    lone CR inside a value unquoted), minimal quoting, non-finite numbers as empty cells."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(table.header)
    for row in table.rows:
        writer.writerow([csv_value(cell) for cell in row])
    return buffer.getvalue()


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
