"""How every Deniable CSV writes a cell, so any text survives pandas, R and spreadsheets.

The rule (docs/exports.md): **a text cell is always written as ``'`` followed by the exact
text**; numbers are written bare (shortest round-trip form); an empty cell is a missing value.

Why tag *every* text cell rather than only those starting with ``= + - @`` (OWASP's rule)?

* Spreadsheet formula injection is neutralised: no text cell can start with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return, so a spreadsheet never evaluates one as a formula.
* Reading back is one unconditional step — drop the first character of every text cell — so it
  is exact for every value, including one that itself starts with ``'`` (OWASP's conditional
  prefix makes ``'=x`` and ``=x`` ambiguous unless ``'`` is prefixed too).
* Type inference cannot corrupt text: an option ``007``, ``1e5``, ``TRUE``, ``NA`` or ``None``
  is written ``'007`` … ``'None``, which pandas and R keep as text (untagged, pandas would read
  ``007`` as the number 7 and ``NA`` as missing). An empty text and a missing value stay
  distinct (``'`` against an empty cell).

Commas, quotes, newlines, ``#`` and leading/trailing spaces are left to standard CSV quoting
(RFC 4180, as Python's :mod:`csv` writes it); the file carries no comment lines, so no reader
needs a comment character.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

TEXT_PREFIX = "'"
MISSING = ""


def text_cell(value: str | None) -> str:
    """A text value as written in a CSV cell (``None`` is missing)."""
    return MISSING if value is None else TEXT_PREFIX + value


def number_cell(value: float | int | bool | None) -> str | int | float:
    """A number as written in a CSV cell: bools as 1/0, floats in Python's shortest form."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return int(value)
    return value


def csv_chunks(header: list[str], rows: Iterable[list[Any]], *, every: int = 500) -> Iterator[str]:
    """The header line then the rows, as CSV text in pieces of ``every`` rows (for streaming)."""
    buffer = io.StringIO()
    # CRLF (RFC 4180): with "\n" alone Python's csv module leaves a lone "\r" inside a value
    # unquoted, and readers then split the row there.
    writer = csv.writer(buffer, lineterminator="\r\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)
        return text

    writer.writerow(header)
    yield flush()
    pending = 0
    for row in rows:
        writer.writerow(row)
        pending += 1
        if pending >= every:
            yield flush()
            pending = 0
    tail = flush()
    if tail:
        yield tail
