"""Helpers of the XLSForm tests: workbooks written cell by cell with openpyxl (the way a person
writes one in Excel), the import through the API, pyxform's conversion and the definition two
surveys must share after a round trip."""

from __future__ import annotations

import io
from typing import Any

from openpyxl import Workbook
from pyxform.xls2xform import convert

IMPORT_URL = "/api/v1/surveys/import/xlsform/"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def workbook(sheets: dict[str, list[list[Any]]]) -> bytes:
    """An .xlsx with the given sheets (rows of cell values; the first row is the header)."""
    book = Workbook()
    assert book.active is not None
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def upload(client: Any, data: bytes, name: str = "form.xlsx") -> Any:
    """POST the bytes as the multipart field ``file``."""
    return client.post(IMPORT_URL, {"file": _named(data, name)}, format="multipart")


def _named(data: bytes, name: str) -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def xform(data: bytes) -> str:
    """pyxform's XForm of an .xlsx (raises PyXFormError when it refuses the form)."""
    warnings: list[str] = []
    return convert(xlsform=data, file_type=".xlsx", warnings=warnings).xform


#: The parts of ``GET /api/v1/surveys/<slug>/`` that are the survey's definition.
DEFINITION = ("title", "description", "access", "planned_n", "response_cap", "budget")
DEFINITION += ("questions", "languages", "translations", "epsilon_local_total")


def definition(body: dict[str, Any]) -> dict[str, Any]:
    """A survey body's definition (not its slug, dates, owner or links)."""
    return {key: body[key] for key in DEFINITION}
