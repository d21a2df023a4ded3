"""The one CSV writer: every CSV Deniable serves is written here, so every file follows one rule.

The rule (docs/exports.md, DESIGN §8.4): **a text cell is always written as ``'`` followed by the
exact text**; numbers are written bare (shortest round-trip form, bools as 1/0); a missing value
(``None``, NaN, ±∞) is an empty cell. The cell's *Python type* decides: a ``str`` is text, an
``int``/``float``/``bool`` a number. Callers hand over raw values, never pre-tagged ones, so no
file can forget the tag (the release CSV once did: formula injection, issue 21 item 7); any
other type is a ``TypeError`` rather than a guess.

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
needs a comment character. The header row holds column names (identifiers), written as they are.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator, Sequence

TEXT_PREFIX = "'"
MISSING = ""

#: What a caller may put in a cell: text, a number, or ``None`` for missing.
Cell = str | int | float | bool | None


def cell(value: Cell) -> str | int | float:
    """A value as written in a CSV cell: text tagged, numbers bare, missing/non-finite empty."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return TEXT_PREFIX + value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else MISSING
    raise TypeError(f"a CSV cell is text, a number or None, not {type(value).__name__}")


def csv_chunks(
    header: Sequence[str], rows: Iterable[Sequence[Cell]], *, every: int = 500
) -> Iterator[str]:
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
        writer.writerow([cell(value) for value in row])
        pending += 1
        if pending >= every:
            yield flush()
            pending = 0
    tail = flush()
    if tail:
        yield tail


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """The whole file as one string (small tables: estimates, regression, releases, links)."""
    return "".join(csv_chunks(header, rows))
