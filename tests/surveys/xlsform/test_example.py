"""The example committed under docs/examples/ (docs/xlsform.md) converts with pyxform and imports
as the survey the guide describes; every column it uses is in the guide's column reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from surveys.xlsform.reader import read_workbook
from tests.surveys.xlsform.support import upload, xform

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "xlsform-example.xlsx"


def test_the_example_converts_and_imports(api):
    data = EXAMPLE.read_bytes()
    xform(data)
    response = upload(api, data)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["slug"] == "health-pilot" and body["languages"] == ["en", "es"]
    kinds = {q["key"]: (q["kind"], (q["design"] or {}).get("name")) for q in body["questions"]}
    assert kinds == {
        "region": ("category", None),
        "age": ("number", None),
        "smoked": ("yes_no", "forced_response"),
        "bribe": ("yes_no", "crosswise"),
        "exam": ("yes_no", "cheater_detection"),
        "police": ("choice", "k_rr"),
        "drugs": ("multi", "warner"),
        "hours": ("number", None),
    }
    assert body["translations"]["es"]["title"] == "Piloto de salud y trabajo"


def test_the_guide_names_every_column_of_the_example():
    guide = (ROOT / "docs" / "xlsform.md").read_text()
    for sheet in read_workbook(EXAMPLE.read_bytes()).values():
        for column in sheet.columns:
            base = column.split("::")[0] if not column.startswith("deniable::") else column
            base = "::".join(base.split("::")[:2])
            assert f"`{base}" in guide, column
