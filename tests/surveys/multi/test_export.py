"""The multi-select kind in the reports export (issue 16): one 1/0 column per option named
``<key>.<option>``, read cleanly by pandas, with each option column's design in the metadata."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest

from tests.surveys.multi.support import OPTIONS, open_survey, submit_answer, url

pytestmark = pytest.mark.django_db


def test_csv_has_one_column_per_option_and_pandas_reads_it(api, anon):
    survey = open_survey(api)
    sent = [
        {"cannabis": True, "cocaine": False, "ecstasy": True},
        {"cannabis": False, "cocaine": False, "ecstasy": False},
        {"cannabis": True, "cocaine": True, "ecstasy": False},
    ]
    for a in sent:
        assert submit_answer(anon, survey, a).status_code == 201
    r = api.get(url(survey, "responses/export/?format=csv"))
    assert r.status_code == 200
    text = b"".join(r.streaming_content).decode()
    assert text.startswith("drugs.cannabis,drugs.cocaine,drugs.ecstasy,age\r\n")
    frame = pd.read_csv(io.StringIO(text))
    assert list(frame.columns) == [f"drugs.{o}" for o in OPTIONS] + ["age"]
    for o in OPTIONS:
        assert frame[f"drugs.{o}"].dtype.kind == "i"  # 1/0 integers, no text prefix
        assert int(frame[f"drugs.{o}"].sum()) == sum(a[o] for a in sent)
    rows = sorted(
        tuple(int(x) for x in row) for row in frame[[f"drugs.{o}" for o in OPTIONS]].values
    )
    assert rows == sorted(tuple(int(a[o]) for o in OPTIONS) for a in sent)


def test_json_export_rows_and_metadata(api, anon):
    survey = open_survey(api)
    assert (
        submit_answer(
            anon, survey, {"cannabis": True, "cocaine": False, "ecstasy": False}
        ).status_code
        == 201
    )
    body = api.get(url(survey, "responses/export/?format=json"))
    data = __import__("json").loads(b"".join(body.streaming_content))
    assert data["rows"] == [
        {"drugs.cannabis": 1, "drugs.cocaine": 0, "drugs.ecstasy": 0, "age": "young"}
    ]
    assert data["designs"]["drugs"]["columns"]["cocaine"] == "drugs.cocaine"
    meta = api.get(url(survey, "responses/export/metadata/")).json()
    columns = {c["key"]: c for c in meta["columns"]}
    assert "drugs" not in columns
    for o in OPTIONS:
        c = columns[f"drugs.{o}"]
        assert (c["type"], c["question"], c["option"]) == ("integer", "drugs", o)
        assert c["design"]["name"] == "forced_response"
        assert (c["design"]["c"], c["design"]["d"]) == (0.5, 0.25)
        # Each column is one report: its own ε, not the question's sum.
        assert c["design"]["epsilon"] == pytest.approx(math.log(3), rel=1e-12)
        assert c["rrreg"].startswith(f"rrreg(drugs.{o} ~ 1, data = reports, p = 0.5")


def test_r_read_csv_keeps_the_option_columns(api, anon, tmp_path):
    """The docs' R line (``read.csv(…, check.names = FALSE)``) reads ``drugs.cannabis`` as is,
    as 1/0 integers; the name is syntactic, so ``rrreg(drugs.cannabis ~ 1, …)`` needs no quotes."""
    import shutil
    import subprocess

    from testsupport.services import require_service

    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    survey = open_survey(api)
    for a in ({"cannabis": True, "cocaine": False, "ecstasy": True}, dict.fromkeys(OPTIONS, True)):
        assert submit_answer(anon, survey, a).status_code == 201
    path = tmp_path / "reports.csv"
    path.write_bytes(
        b"".join(api.get(url(survey, "responses/export/?format=csv")).streaming_content)
    )
    script = tmp_path / "read.R"
    script.write_text(
        f'reports <- read.csv("{path}", na.strings = "", check.names = FALSE, encoding = "UTF-8")\n'
        'cat(names(reports), sep = "\\t"); cat("\\n")\n'
        'cat(vapply(reports[1:3], function(c) sum(c), 0), sep = "\\t"); cat("\\n")\n'
        'cat(make.names("drugs.cannabis") == "drugs.cannabis", "\\n")\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        ["Rscript", "--vanilla", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names, sums, syntactic = done.stdout.splitlines()
    assert names.split("\t") == [f"drugs.{o}" for o in OPTIONS] + ["age"]
    assert [int(float(x)) for x in sums.split("\t")] == [2, 1, 2]
    assert syntactic.strip() == "TRUE"
