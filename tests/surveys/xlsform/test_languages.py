"""Language columns as Kobo and ODK write them."""

from __future__ import annotations

import pytest

from surveys.xlsform.languages import language_code, language_label, split_column


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("English (en)", "en"),
        ("Español (es)", "es"),
        ("Spanish", "es"),
        ("French (fr)", "fr"),
        ("Português (pt_BR)", "pt-br"),
        ("Klingon", None),
        ("", None),
    ],
)
def test_language_code(text, code):
    assert language_code(text) == code


def test_language_label_and_columns():
    assert language_label("es") == "Español (es)"
    assert split_column("label::English (en)", ("label",)) == ("label", "English (en)")
    assert split_column("LABEL", ("label",)) == ("label", None)
    assert split_column("deniable::design", ("label",)) == ("deniable::design", None)
