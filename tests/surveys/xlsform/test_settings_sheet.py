"""The settings row: numbers read as numbers, unknown Deniable settings refused by cell."""

from __future__ import annotations

from surveys.xlsform.parse import Parsed
from surveys.xlsform.reader import Sheet
from surveys.xlsform.settings_sheet import parse_settings


def _sheet(values: dict[str, object]) -> Sheet:
    letters = "ABCDEFGH"
    return Sheet("settings", {c: letters[i] for i, c in enumerate(values)}, [(2, dict(values))])


def test_values_and_problems_by_cell():
    out = Parsed()
    settings = parse_settings(
        _sheet(
            {
                "form_title": "T",
                "deniable::budget_epsilon": "2.5",
                "deniable::planned_n": "1.5",
                "deniable::budget_delta": "tiny",
                "deniable::colour": "red",
            }
        ),
        out,
    )
    assert settings.values["deniable::budget_epsilon"] == 2.5
    assert set(out.errors) == {"settings!C2", "settings!D2", "settings!E2"}


def test_no_settings_sheet_asks_for_a_title():
    out = Parsed()
    parse_settings(None, out)
    assert list(out.errors) == ["settings!A1"]
