"""Hostile files: each is a 400 naming the cell (or ``file``), never a 500, and the reader never
unzips or walks more than its bounds."""

from __future__ import annotations

import datetime
import io
import time
import zipfile

import pytest
from openpyxl import Workbook

from surveys.models import Survey
from surveys.xlsform import reader
from tests.surveys.xlsform.support import upload, workbook

pytestmark = pytest.mark.django_db

HEADER = ["type", "name", "label"]
SETTINGS = [["form_title"], ["Hostile"]]


def _refused(api, data: bytes) -> dict[str, list[str]]:
    response = upload(api, data)
    assert response.status_code == 400, response.content[:300]
    assert Survey.objects.count() == 0
    return response.json()["errors"]


@pytest.mark.parametrize(
    "data",
    [b"", b"not a spreadsheet", b"PK\x03\x04 truncated zip", b"\x00" * 5000],
    ids=["empty", "text", "broken-zip", "zeros"],
)
def test_not_an_xlsx(api, data):
    assert list(_refused(api, data)) == ["file"]


def test_a_zip_that_is_not_a_workbook(api):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hello")
    assert list(_refused(api, buffer.getvalue())) == ["file"]


def test_a_zip_bomb_is_refused_before_it_is_unzipped(api):
    """25 MB of zeros deflate to ~25 kB: the declared size is over the bound, so the member is
    never inflated (the refusal is fast, and names the file)."""
    buffer = io.BytesIO(workbook({"survey": [HEADER], "settings": SETTINGS}))
    with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/bomb.bin", b"\x00" * (reader.MAX_UNZIPPED_BYTES + 1))
    data = buffer.getvalue()
    assert len(data) < reader.max_upload_bytes()
    started = time.perf_counter()
    errors = _refused(api, data)
    assert time.perf_counter() - started < 2
    assert "unzips to" in errors["file"][0]


def test_a_file_over_the_upload_limit(api, settings):
    settings.DENIABLE_XLSFORM_MAX_BYTES = 1000
    data = workbook({"survey": [HEADER], "settings": SETTINGS})
    assert "at most 1000" in _refused(api, data)["file"][0]


def _rows(count: int) -> bytes:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("survey")
    sheet.append(HEADER)
    for i in range(count):
        sheet.append(["integer", f"q{i}", "Q"])
    settings_sheet = book.create_sheet("settings")
    for row in SETTINGS:
        settings_sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _with_sheet_xml(data: bytes, rows: int) -> bytes:
    """The workbook with its first sheet's XML replaced by ``rows`` rows of inline strings
    (written directly: openpyxl takes a minute to write 10⁵ rows on a loaded machine)."""
    cells = "".join(
        f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>integer</t></is></c>'
        f'<c r="B{r}" t="inlineStr"><is><t>q{r}</t></is></c></row>'
        for r in range(1, rows + 1)
    )
    xml = (
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"<sheetData>{cells}</sheetData></worksheet>"
    )
    source, buffer = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            body = source.read(member)
            target.writestr(member, xml if member.filename == "xl/worksheets/sheet1.xml" else body)
    return buffer.getvalue()


def test_a_hundred_thousand_rows_are_refused_unread(api):
    """~8 MB of sheet XML (deflated to well under the upload limit): refused from the zip's
    directory, before openpyxl parses it."""
    data = _with_sheet_xml(_rows(1), 100_000)
    assert len(data) < reader.max_upload_bytes()
    started = time.perf_counter()
    errors = _refused(api, data)
    assert time.perf_counter() - started < 2
    assert "xl/worksheets/sheet1.xml unzips to" in errors["file"][0]


def test_rows_past_the_row_limit_are_named(api):
    errors = _refused(api, _rows(reader.MAX_ROWS + 500))
    assert f"survey!A{reader.MAX_ROWS + 1}" in errors


def test_formulas_dates_and_numbers_as_column_names_are_named_by_cell(api):
    data = workbook(
        {
            "survey": [
                [*HEADER, 42],
                ["integer", "age", '=CONCAT("A", "ge")'],
                ["integer", datetime.datetime(2024, 1, 1), "Born"],
            ],
            "settings": SETTINGS,
        }
    )
    errors = _refused(api, data)
    assert any("formula" in m for m in errors["survey!C2"])
    assert any("date" in m for m in errors["survey!B3"])
    assert any("text" in m for m in errors["survey!D1"])


def test_a_duplicate_column_is_named():
    data = workbook({"survey": [["type", "name", "Name"]], "settings": SETTINGS})
    with pytest.raises(reader.XlsformErrors) as caught:
        reader.read_workbook(data)
    assert list(caught.value.errors) == ["survey!C1"]


def test_the_reader_reads_sheets_by_name_in_any_case():
    data = workbook({"Survey": [HEADER, ["integer", "age", "Age"]], "SETTINGS": SETTINGS})
    sheets = reader.read_workbook(data)
    assert sheets["survey"].rows == [(2, {"type": "integer", "name": "age", "label": "Age"})]
    assert sheets["survey"].ref("label", 2) == "survey!C2"
    assert sheets["settings"].rows == [(2, {"form_title": "Hostile"})]


def test_a_missing_upload_field_is_named(api):
    response = api.post("/api/v1/surveys/import/xlsform/", {}, format="multipart")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["file"]


def _padded(row: list, width: int, last: object) -> list:
    """``row`` then blanks up to column ``width`` - 1, then ``last`` in column ``width``."""
    return [*row, *([None] * (width - 1 - len(row))), last]


def test_a_design_column_past_the_last_column_read_is_named(api):
    """A `deniable::design` header and cells in column MAX_COLUMNS + 1 were dropped without a
    word, so the question was imported as a direct one (asked as the respondent answers)."""
    width = reader.MAX_COLUMNS + 1
    data = workbook(
        {
            "survey": [
                _padded(["type", "name", "label"], width, "deniable::design"),
                _padded(["select_one yes_no", "smoker", "Do you smoke?"], width, "forced_response"),
            ],
            "choices": [
                ["list_name", "name", "label"],
                ["yes_no", "yes", "Yes"],
                ["yes_no", "no", "No"],
            ],
            "settings": SETTINGS,
        }
    )
    errors = _refused(api, data)
    assert list(errors) == ["survey!CW1"]  # column 101, named once for the sheet
    assert f"more than {reader.MAX_COLUMNS} columns" in errors["survey!CW1"][0]


def test_a_lone_cell_far_past_the_last_column_is_named(api):
    data = workbook(
        {
            "survey": [HEADER, _padded(["integer", "age", "Age"], 150, "forgotten note")],
            "settings": SETTINGS,
        }
    )
    errors = _refused(api, data)
    assert list(errors) == ["survey!ET2"]


def test_blank_cells_past_the_last_column_are_fine():
    data = workbook(
        {"survey": [HEADER, _padded(["integer", "age", "Age"], 150, "  ")], "settings": SETTINGS}
    )
    assert reader.read_workbook(data)["survey"].rows == [
        (2, {"type": "integer", "name": "age", "label": "Age"})
    ]


def test_two_sheets_of_the_same_name_are_refused(api):
    """`survey` and ` Survey ` (names are read trimmed and in any case): the second one's
    questions were dropped without a word."""
    data = workbook(
        {
            "survey": [HEADER, ["integer", "age", "Age"]],
            " Survey ": [HEADER, ["integer", "kids", "Children"]],
            "settings": SETTINGS,
        }
    )
    errors = _refused(api, data)
    assert any("Two sheets are named 'survey'" in m for m in errors["file"])


def test_merged_cells_are_named_by_their_first_cell(api):
    """`required` = yes merged over two rows shows on both in Excel; the file holds it once."""
    book = Workbook()
    assert book.active is not None
    sheet = book.active
    sheet.title = "survey"
    for row in (["type", "name", "label", "required"], ["integer", "a", "A", "yes"],
                ["integer", "b", "B", None]):  # fmt: skip
        sheet.append(row)
    sheet.merge_cells("D2:D3")
    settings = book.create_sheet("settings")
    for row in SETTINGS:
        settings.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    errors = _refused(api, buffer.getvalue())
    assert list(errors) == ["survey!D2"] and "D2:D3" in errors["survey!D2"][0]


def test_two_files_in_one_upload_are_refused(api):
    first = workbook({"survey": [HEADER, ["integer", "age", "Age"]], "settings": SETTINGS})
    response = api.post(
        "/api/v1/surveys/import/xlsform/",
        {"file": [io.BytesIO(first), io.BytesIO(first)]},
        format="multipart",
    )
    assert response.status_code == 400 and "file" in response.json()["errors"]
    assert Survey.objects.count() == 0
