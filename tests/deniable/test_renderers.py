"""The NaN policy and the CSV renderer (deniable/renderers.py, docs/exports.md): NaN and ±inf are
null in JSON and an empty cell in CSV, everywhere."""

from __future__ import annotations

import csv
import io
import json
import math

from django.conf import settings
from rest_framework.renderers import JSONRenderer

from deniable.csv_cells import cell
from deniable.renderers import (
    CSVRenderer,
    CSVTable,
    FiniteJSONRenderer,
    csv_text,
    finite_or_none,
)

NAN, INF = math.nan, math.inf


def test_finite_or_none_replaces_every_non_finite_float_and_nothing_else():
    data = {
        "a": NAN,
        "b": [1.5, INF, -INF, {"c": NAN, "d": 0.0}],
        "e": (2, NAN),
        "f": "NaN",
        "g": None,
        "h": True,
        "i": 7,
    }
    assert finite_or_none(data) == {
        "a": None,
        "b": [1.5, None, None, {"c": None, "d": 0.0}],
        "e": [2, None],
        "f": "NaN",  # text stays text
        "g": None,
        "h": True,
        "i": 7,
    }


def test_json_renderer_writes_null_for_nan_and_infinity():
    body = FiniteJSONRenderer().render({"x": NAN, "y": [INF, -INF, 0.25]})
    assert json.loads(body) == {"x": None, "y": [None, None, 0.25]}
    assert b"NaN" not in body and b"Infinity" not in body


def test_json_renderer_is_drf_json_for_finite_data():
    data = {"x": 0.1, "t": "é", "n": [1, 2]}
    assert FiniteJSONRenderer().render(data) == JSONRenderer().render(data)


def test_every_api_view_defaults_to_the_finite_renderer():
    assert settings.REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] == [
        "deniable.renderers.FiniteJSONRenderer"
    ]


def test_cell_empties_missing_and_non_finite_cells_and_tags_every_text():
    assert [cell(v) for v in (None, NAN, INF, -INF)] == ["", "", "", ""]
    assert [cell(v) for v in (0, 0.0, -3.5, True, False)] == [0, 0.0, -3.5, 1, 0]
    assert [cell(v) for v in ("'x", "", "=1+1", "007")] == ["''x", "'", "'=1+1", "'007"]


def test_cell_refuses_a_type_it_cannot_classify():
    import decimal

    import pytest

    for value in (decimal.Decimal("1.5"), b"x", {"a": 1}, [1]):
        with pytest.raises(TypeError):
            cell(value)  # type: ignore[arg-type]


def test_csv_renderer_writes_rfc4180_with_empty_cells_for_nan():
    table = CSVTable(
        ["a", "b", "c"], [[1, NAN, "x,y"], [INF, None, 'say "hi"'], [0.5, -INF, "l\rm"]]
    )
    body = CSVRenderer().render(table)
    text = body.decode("utf-8")
    assert text.split("\r\n")[0] == "a,b,c"
    assert text.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [
        ["a", "b", "c"],
        ["1", "", "'x,y"],
        ["", "", '\'say "hi"'],
        ["0.5", "", "'l\rm"],  # a lone CR inside a value is quoted, not a line break
    ]


def test_csv_text_is_what_the_renderer_encodes():
    table = CSVTable(["k"], [["é"]])
    assert CSVRenderer().render(table) == csv_text(table).encode("utf-8")


def test_csv_renderer_passes_text_through():
    assert CSVRenderer().render("a,b\r\n") == b"a,b\r\n"
    assert CSVRenderer().render(b"raw") == b"raw"
    assert CSVRenderer.media_type == "text/csv" and CSVRenderer.format == "csv"
