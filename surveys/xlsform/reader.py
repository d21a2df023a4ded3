"""An uploaded .xlsx read safely into plain sheets (docs/xlsform.md#limits).

Everything a hostile file could do is bounded before openpyxl parses a byte: the upload's size,
the number of members in the zip and the size they declare unzipped (Python's zipfile never
inflates a member past its declared size: a lying header ends in a CRC error, not in memory), and
then the rows and columns read. Formulas are refused (their cached value may be anything the
author's spreadsheet computed last, or nothing), so are dates where text belongs. Every problem
is named by its cell, ``<sheet>!<column><row>``, or by ``file`` for the file as a whole.
"""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from surveys.kinds._xlsform import number_text

#: Rows and columns read per sheet (a survey has at most 100 questions; lists need more rows).
MAX_ROWS = 2000
MAX_COLUMNS = 100
#: Members of the zip and their declared size once unzipped (a real XLSForm is well below).
MAX_MEMBERS = 200
MAX_UNZIPPED_BYTES = 20 * 1024 * 1024
#: openpyxl parses each sheet's XML (and the shared strings) whole when the sheet declares no
#: size, at about 1 MB/s on a loaded machine: a sheet of MAX_ROWS rows of ten cells is ~2.4 MB.
MAX_PART_BYTES = 4 * 1024 * 1024
_PARSED_WHOLE = ("xl/worksheets/", "xl/sharedstrings.xml")
#: The sheets an XLSForm may have (any other sheet is ignored: Kobo adds none we need).
SHEETS = ("survey", "choices", "settings")


class XlsformErrors(Exception):
    """Problems found, by cell (``{"survey!B3": ["…"]}``); the caller answers one 400."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


def max_upload_bytes() -> int:
    """The largest .xlsx accepted (``DENIABLE_XLSFORM_MAX_BYTES``, default 1 MiB)."""
    return int(settings.DENIABLE_XLSFORM_MAX_BYTES)


@dataclass
class Sheet:
    """One sheet: its header (column name → letter) and its non-blank rows (number, cells)."""

    name: str
    columns: dict[str, str] = field(default_factory=dict)
    rows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def ref(self, column: str, row: int) -> str:
        """``survey!C4``; a column the sheet lacks is named after the last one."""
        letter = self.columns.get(column) or get_column_letter(len(self.columns) + 1)
        return f"{self.name}!{letter}{row}"


def read_workbook(data: bytes) -> dict[str, Sheet]:
    """The XLSForm sheets present (lower-case names); raises :class:`XlsformErrors`."""
    limit = max_upload_bytes()
    if len(data) > limit:
        raise XlsformErrors({"file": [f"The file is {len(data)} bytes; at most {limit}."]})
    _check_zip(data)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    # openpyxl raises many types for a damaged file (KeyError, ValueError, zipfile and XML
    # errors…); every one is the same answer to the uploader, and none is a server fault.
    except Exception:  # noqa: BLE001
        raise XlsformErrors({"file": [_NOT_XLSX]}) from None
    errors: dict[str, list[str]] = {}
    sheets: dict[str, Sheet] = {}
    try:
        for worksheet in book.worksheets:
            name = str(worksheet.title).strip().lower()
            if name not in SHEETS:
                continue
            if name in sheets:  # "survey" and "Survey": one would have been dropped unsaid
                errors.setdefault("file", []).append(
                    f"Two sheets are named {name!r} (letter case aside); keep one."
                )
                continue
            _merged_cells(data, name, getattr(worksheet, "_worksheet_path", ""), errors)
            sheets[name] = _read_sheet(name, worksheet, errors)
    except Exception:  # noqa: BLE001 (a sheet's XML damaged past the header: as above)
        raise XlsformErrors({"file": [_NOT_XLSX]}) from None
    finally:
        book.close()
    if errors:
        raise XlsformErrors(errors)
    return sheets


_MERGE = re.compile(rb'<mergeCell\s+ref="([A-Z]{1,3}[0-9]{1,7}(?::[A-Z]{1,3}[0-9]{1,7})?)"')


def _merged_cells(data: bytes, name: str, part: str, errors: dict[str, list[str]]) -> None:
    """Merged cells are a problem named by their first cell: the spreadsheet shows the value on
    every row of the range, but the file holds it in the first cell only, so a merged `required`
    or design cell would have applied to one question and silently not to the next. (The part
    is at most MAX_PART_BYTES: _check_zip.)"""
    if not part:
        return
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        try:
            xml = archive.read(part.lstrip("/"))
        except KeyError:
            return
    for ref in _MERGE.findall(xml):
        cells = ref.decode()
        errors.setdefault(f"{name}!{cells.split(':')[0]}", []).append(
            f"Merged cells ({cells}): the file keeps the value in the first cell only. Unmerge "
            "them and type the value in each cell."
        )


_NOT_XLSX = "Not a readable .xlsx file (save the form from Excel, LibreOffice or Google Sheets)."


def _check_zip(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise XlsformErrors({"file": [_NOT_XLSX]}) from None
    if len(members) > MAX_MEMBERS:
        raise XlsformErrors(
            {"file": [f"The file holds {len(members)} parts; at most {MAX_MEMBERS}."]}
        )
    for member in members:
        if member.filename.lower().startswith(_PARSED_WHOLE) and member.file_size > MAX_PART_BYTES:
            message = (
                f"{member.filename} unzips to {member.file_size} bytes; at most {MAX_PART_BYTES} "
                f"(a sheet holds at most {MAX_ROWS} rows)."
            )
            raise XlsformErrors({"file": [message]})
    unzipped = sum(m.file_size for m in members)
    if unzipped > MAX_UNZIPPED_BYTES:
        raise XlsformErrors(
            {"file": [f"The file unzips to {unzipped} bytes; at most {MAX_UNZIPPED_BYTES}."]}
        )


def _read_sheet(name: str, worksheet: Any, errors: dict[str, list[str]]) -> Sheet:
    sheet = Sheet(name)
    # Every column is read (the parts' unzipped size already bounds a sheet), so that a cell past
    # the last column read is named, not dropped: a design column there would have turned a
    # randomized question into a direct one without a word.
    rows = worksheet.iter_rows()
    header = tuple(next(rows, ()))
    wide = _beyond_the_columns(name, header, errors)
    _header(sheet, header[:MAX_COLUMNS], errors)
    letters = {letter: column for column, letter in sheet.columns.items()}
    for full_row in rows:
        row = tuple(full_row)
        wide = wide or _beyond_the_columns(name, row, errors)
        number, values = _row_values(name, row[:MAX_COLUMNS], letters, errors)
        if not values:
            continue
        if number > MAX_ROWS:
            errors.setdefault(f"{name}!A{number}", []).append(
                f"The {name} sheet has more than {MAX_ROWS} rows; at most {MAX_ROWS}."
            )
            break
        sheet.rows.append((number, values))
    return sheet


def _beyond_the_columns(name: str, row: tuple[Any, ...], errors: dict[str, list[str]]) -> bool:
    """Name the first filled cell past column MAX_COLUMNS (once per sheet: the caller stops
    looking once it returns True)."""
    for cell in row[MAX_COLUMNS:]:
        value = cell.value
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        errors.setdefault(f"{name}!{cell.column_letter}{cell.row}", []).append(
            f"The {name} sheet uses more than {MAX_COLUMNS} columns; at most {MAX_COLUMNS} are "
            "read, so this cell would be ignored. Move what it holds into the first "
            f"{MAX_COLUMNS} columns."
        )
        return True
    return False


def _header(sheet: Sheet, header: Any, errors: dict[str, list[str]]) -> None:
    for cell in header:
        if cell.value is None or (isinstance(cell.value, str) and not cell.value.strip()):
            continue
        ref = f"{sheet.name}!{cell.column_letter}{cell.row}"
        if not isinstance(cell.value, str):
            errors.setdefault(ref, []).append("A column name must be text.")
            continue
        column = cell.value.strip()
        if column.lower() in {c.lower() for c in sheet.columns}:
            errors.setdefault(ref, []).append(f"The column {column!r} appears twice.")
            continue
        sheet.columns[column] = cell.column_letter


def _row_values(
    name: str, row: Any, letters: dict[str, str], errors: dict[str, list[str]]
) -> tuple[int, dict[str, Any]]:
    """(row number, its non-blank cells by column); empty cells of read-only mode have no
    coordinates."""
    values: dict[str, Any] = {}
    number = 0
    for cell in row:
        number = getattr(cell, "row", None) or number
        column = letters.get(getattr(cell, "column_letter", ""))
        if column is None or cell.value is None:
            continue
        value, problem = _cell_value(cell)
        if problem:
            errors.setdefault(f"{name}!{cell.column_letter}{cell.row}", []).append(problem)
        elif value != "":
            values[column] = value
    return number, values


def _cell_value(cell: Any) -> tuple[Any, str | None]:
    """The cell as text or a number; a formula or a date is a problem (named by the caller)."""
    value = cell.value
    if getattr(cell, "data_type", None) == "f":
        return None, "A formula: type the value itself (formulas are not evaluated)."
    if isinstance(value, bool):
        return ("true" if value else "false"), None
    if isinstance(value, int | float):
        return number_text(float(value)) if isinstance(value, float) else str(value), None
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta):
        return None, "A date or time where text or a number is expected."
    if isinstance(value, str):
        return value.strip(), None
    return None, "Not text or a number."
