"""Labelled exports (issue 25 item 3, DESIGN §8.6): ``?format=dta`` (Stata 118) and ``?format=sav``
(SPSS) hold the CSV's rows and columns, read back with pyreadstat and, where R is installed, with
R's haven (CI installs Debian's r-cran-haven, .ci/system-packages)."""

from __future__ import annotations

import csv
import io
import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from audit.models import Entry
from surveys.analysis.export_labelled import fit, variable_names
from surveys.models import Survey
from tests.surveys.api.support import some_responses, url
from tests.surveys.kinds import matrix_support
from testsupport.factories import make_survey, submit
from testsupport.services import require_service

pyreadstat = pytest.importorskip("pyreadstat")
pytestmark = pytest.mark.django_db

FORMATS = ("dta", "sav")


def _download(api: Any, survey: Survey, fmt: str, tmp_path: Path) -> Path:
    r = api.get(url(survey, f"responses/export/?format={fmt}"))
    assert r.status_code == 200, r.content if hasattr(r, "content") else r
    assert r["Content-Disposition"] == f'attachment; filename="{survey.slug}-reports.{fmt}"'
    path = tmp_path / f"reports.{fmt}"
    path.write_bytes(b"".join(r.streaming_content))
    return path


def _read(path: Path) -> tuple[Any, Any]:
    reader = pyreadstat.read_dta if path.suffix == ".dta" else pyreadstat.read_sav
    return reader(str(path))


def _csv_rows(api: Any, survey: Survey) -> tuple[list[str], list[list[Any]]]:
    """The CSV export's header and rows, text cells untagged, numbers as floats."""
    r = api.get(url(survey, "responses/export/?format=csv"))
    header, *rows = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))
    cells = [
        [None if c == "" else c[1:] if c.startswith("'") else float(c) for c in row] for row in rows
    ]
    return header, cells


def _decoded(frame: Any) -> list[tuple[Any, ...]]:
    """The file's rows as floats, missing as None."""
    out = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append(None)
            else:
                cells.append(float(value))
        out.append(tuple(cells))
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_labelled_export_is_the_csv_with_labels(api, survey, tmp_path, fmt):
    some_responses(survey, 20)
    submit(survey, {"coin": True, "mirror": True, "party": "a"})  # optional questions skipped
    header, rows = _csv_rows(api, survey)
    frame, meta = _read(_download(api, survey, fmt, tmp_path))
    assert list(frame.columns) == header == ["coin", "mirror", "party", "age", "hours"]
    assert meta.column_labels == [
        "Coin question?",
        "Warner question?",
        "Which party?",
        "Age group",
        "Hours",
    ]
    assert meta.variable_value_labels["coin"] == {0: "No", 1: "Yes"}
    assert meta.variable_value_labels["party"] == {1: "a", 2: "b", 3: "c", 4: "d"}
    assert meta.variable_value_labels["age"] == {1: "young", 2: "old"}
    assert "hours" not in meta.variable_value_labels
    # Same rows (as a multiset: both are shuffled), the codes decoded through the value labels.
    labels = meta.variable_value_labels
    got = Counter(
        tuple(
            labels[c][int(v)] if c in ("party", "age") and v is not None else v
            for c, v in zip(header, row, strict=True)
        )
        for row in _decoded(frame)
    )
    assert got == Counter(tuple(row) for row in rows)
    assert len(rows) == 21
    assert meta.file_label.startswith("Every kind (Deniable ")
    if fmt == "sav":  # the design metadata in the notes
        notes = "\n".join(meta.notes)
        assert survey.slug in notes and "REPORTED" in notes
        assert '"name": "warner"' in " ".join(meta.notes)
        assert all(len(line.encode()) <= 80 for line in meta.notes)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_kind_has_its_labels(alice, api, tmp_path, fmt):
    """The kind matrix: every kind and design, its columns named and labelled by its kind."""
    survey = make_survey(alice, matrix_support.survey_body())
    for _ in range(3):
        submit(survey, {q["key"]: answer for _, q, answer in matrix_support.matrix_questions()})
    header, rows = _csv_rows(api, survey)
    frame, meta = _read(_download(api, survey, fmt, tmp_path))
    names = variable_names(header)
    assert list(frame.columns) == [names[c] for c in header]
    assert len(frame) == len(rows) == 3
    for kind, question, _ in matrix_support.matrix_questions():
        for column in matrix_support.export_columns(kind, question):
            name = names[column]
            assert name in frame.columns
            values = meta.variable_value_labels.get(name)
            if kind.name in ("yes_no", "multi") or (
                kind.name == "cheater_detection" and column == question["key"]
            ):
                assert values == {0: "No", 1: "Yes"}, column
            elif kind.name == "crosswise":
                assert values == {0: "Different", 1: "Same"}
            elif kind.name in ("choice", "category"):
                assert list(values.values()) == question["options"]
            elif kind.name == "number":
                assert values is None


def test_names_and_labels_the_formats_cannot_hold(alice, api, tmp_path):
    long_text = "Ü" * 300
    body = {
        "title": "Names",
        "description": "",
        "questions": [
            {"key": "2nd-try", "text": long_text, "kind": "yes_no"},
            {"key": "to", "text": "Reserved?", "kind": "yes_no"},
            {"key": "x" * 64, "text": "Long key", "kind": "yes_no"},
            {"key": "x" * 63 + "y", "text": "Same 32 first", "kind": "yes_no"},
        ],
    }
    survey = make_survey(alice, body)
    submit(survey, {"2nd-try": True, "to": False, "x" * 64: True, "x" * 63 + "y": False})
    for fmt in FORMATS:
        frame, meta = _read(_download(api, survey, fmt, tmp_path))
        assert list(frame.columns) == ["v2nd_try", "to_", "x" * 27, "x" * 25 + "_2"]
        label = meta.column_labels[0]
        assert label.endswith("…") and set(label[:-1]) == {"Ü"}
        assert len(label) == 80 if fmt == "dta" else len(label.encode()) <= 256
    assert variable_names(["a.b", "a_b", "A_B"]) == {"a.b": "a_b", "a_b": "a_b_2", "A_B": "A_B_3"}
    assert fit("abc", 3, "chars") == "abc" and fit("abcd", 3, "chars") == "ab…"


def test_bad_format_is_a_400_naming_format_and_not_audited(api, survey):
    r = api.get(url(survey, "responses/export/?format=xlsx"))
    assert r.status_code == 400
    assert r.json() == {"errors": {"format": ["One of: csv, json, dta, sav."]}}
    assert not Entry.objects.filter(action="export.download").exists()


def test_download_is_audited_with_its_format(api, survey):
    for fmt in FORMATS:
        assert api.get(url(survey, f"responses/export/?format={fmt}")).status_code == 200
    details = list(
        Entry.objects.filter(action="export.download", survey_pk=survey.pk)
        .order_by("id")
        .values_list("detail", flat=True)
    )
    assert details == [{"format": "dta"}, {"format": "sav"}]


def test_another_researchers_survey_is_a_404(bob_api, survey):
    assert bob_api.get(url(survey, "responses/export/?format=dta")).status_code == 404


def test_unpublished_submissions_are_not_in_the_file(api, survey, tmp_path, settings):
    """A retrying or fresh respondent whose batch has not published is not in the file."""
    settings.DENIABLE_ESTIMATE_BATCH = 5
    for _ in range(3):
        submit(survey)
    frame, _meta = _read(_download(api, survey, "dta", tmp_path))
    assert len(frame) == 0


def _r_has(package: str) -> bool:
    done = subprocess.run(
        ["Rscript", "--vanilla", "-e", f"library({package})"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.returncode == 0


R_HAVEN = """
args <- commandArgs(trailingOnly = TRUE)
library(haven)
for (path in args) {
  d <- if (grepl("dta$", path)) read_dta(path) else read_sav(path)
  cat(path, nrow(d), paste(names(d), collapse = ","), "\\n")
  yes_no <- attr(d$coin, "labels")
  yes_no <- yes_no[order(yes_no)]
  cat(attr(d$coin, "label"), "|", paste(names(yes_no), yes_no, collapse = ";"), "|",
      paste(names(attr(d$party, "labels")), collapse = ";"), "\\n")
  cat(sum(d$coin, na.rm = TRUE), sum(!is.na(d$hours)), "\\n")
}
"""
R_FOREIGN = """
args <- commandArgs(trailingOnly = TRUE)
library(foreign)
d <- read.spss(args[2], to.data.frame = FALSE)
cat(args[2], length(d$coin), paste(names(d), collapse = ","), "\\n")
cat(attr(d, "variable.labels")[["coin"]], "|", paste(names(attr(d$coin, "value.labels")),
    attr(d$coin, "value.labels"), collapse = ";"), "\\n")
"""


def test_r_reads_the_labelled_files(api, survey, tmp_path):
    # Skips locally without R; CI installs r-base-core and r-cran-haven (.ci/system-packages)
    # and requires it.
    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    some_responses(survey, 10)
    paths = [str(_download(api, survey, fmt, tmp_path)) for fmt in FORMATS]
    haven = _r_has("haven")
    require_service(haven or _r_has("foreign"), "R's haven or foreign (r-cran-haven)")
    script = tmp_path / "read.R"
    script.write_text(R_HAVEN if haven else R_FOREIGN, encoding="utf-8")
    done = subprocess.run(
        ["Rscript", "--vanilla", str(script), *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    coins = sum(1 for i in range(10) if i % 3 == 0)  # some_responses: coin = i % 3 == 0
    lines = [line.strip() for line in done.stdout.splitlines()]
    if haven:
        for i, path in enumerate(paths):
            assert lines[3 * i] == f"{path} 10 coin,mirror,party,age,hours"
            assert lines[3 * i + 1] == "Coin question? | No 0;Yes 1 | a;b;c;d"
            assert lines[3 * i + 2] == f"{coins} 10"
    else:
        assert lines[0] == f"{paths[1]} 10 coin,mirror,party,age,hours"
        assert lines[1].startswith("Coin question? |")
