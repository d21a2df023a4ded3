"""API v1 (docs/api.md): the responses export (CSV, JSON, metadata, shuffled)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest

from surveys.models import Submission
from tests.surveys.api.support import some_responses, url
from testsupport.factories import full_answers, submit

pytestmark = pytest.mark.django_db


def _report_multiset(survey) -> Counter:
    rows: Counter = Counter()
    kinds = dict(survey.questions.values_list("key", "kind"))
    for answers in Submission.objects.filter(survey=survey).values_list("answers", flat=True):
        row = dict.fromkeys(["coin", "mirror", "party", "age", "hours"], "")
        for key, value in answers.items():
            if kinds[key] == "yes_no":
                row[key] = str(int(value))
            elif kinds[key] == "number":
                row[key] = repr(float(value))
            else:
                row[key] = value
        rows[tuple(row.values())] += 1
    return rows


def _decoded_export(text: str) -> list[list[str]]:
    """The export CSV read with the csv module, text cells' leading "'" dropped."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    kinds = ["yes_no", "yes_no", "choice", "category", "number"]  # FULL_SURVEY's columns
    for row in rows[1:]:
        for i, kind in enumerate(kinds):
            if kind in ("choice", "category") and row[i]:
                assert row[i].startswith("'"), row
                row[i] = row[i][1:]
            else:
                assert not row[i].startswith("'"), row
    return rows


def test_export_csv(api, survey):
    some_responses(survey, 30)
    submit(survey, {"coin": True, "mirror": True, "party": "a"})  # skipped optional questions
    r = api.get(url(survey, "responses/export/?format=csv"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert r["Content-Disposition"] == f'attachment; filename="{survey.slug}-reports.csv"'
    text = b"".join(r.streaming_content).decode()
    # A plain CSV: no comment lines (the design metadata moved to export/metadata/).
    assert "#" not in text and text.startswith("coin,mirror,party,age,hours\r\n")
    header, *rows = _decoded_export(text)
    assert header == ["coin", "mirror", "party", "age", "hours"]
    assert Counter(tuple(row) for row in rows) == _report_multiset(survey)
    assert "submission" not in text and "submitted_on" not in text
    assert not any(str(s.pk) in text for s in Submission.objects.all())


def test_export_metadata(api, survey):
    some_responses(survey, 4)
    r = api.get(url(survey, "responses/export/metadata/"))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["survey"], body["title"], body["respondents"]) == (survey.slug, "Every kind", 4)
    assert body["csv"]["text_prefix"] == "'" and body["csv"]["missing"] == ""
    columns = {c["key"]: c for c in body["columns"]}
    assert [c["key"] for c in body["columns"]] == ["coin", "mirror", "party", "age", "hours"]
    assert {k: c["type"] for k, c in columns.items()} == {
        "coin": "integer",
        "mirror": "integer",
        "party": "text",
        "age": "text",
        "hours": "number",
    }
    coin = columns["coin"]["design"]
    assert (coin["name"], coin["p_truth"], coin["p_yes"], coin["p_no"]) == (
        "forced_response",
        0.5,
        0.25,
        0.25,
    )
    assert (coin["c"], coin["d"]) == (0.5, 0.25)
    assert columns["mirror"]["design"]["p"] == 0.75
    assert columns["coin"]["rrreg"] == (
        'rrreg(coin ~ 1, data = reports, p = 0.5, p0 = 0.25, p1 = 0.25, design = "forced-known")'
    )
    assert columns["mirror"]["rrreg"].endswith('p = 0.75, design = "mirrored")')
    assert columns["party"]["options"] == ["a", "b", "c", "d"]
    assert columns["party"]["design"]["k"] == 4 and "rrreg" not in columns["party"]
    assert (columns["hours"]["min"], columns["hours"]["max"]) == (0.0, 80.0)
    assert "design" not in columns["age"] and "design" not in columns["hours"]


def test_export_is_shuffled(api, survey):
    for i in range(40):
        submit(survey, full_answers(hours=float(i)))
    orders = set()
    for _ in range(3):
        text = b"".join(api.get(url(survey, "responses/export/")).streaming_content).decode()
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        orders.add(tuple(row["hours"] for row in rows))
        assert sorted(float(row["hours"]) for row in rows) == [float(i) for i in range(40)]
    assert len(orders) > 1 or orders != {tuple(repr(float(i)) for i in range(40))}


def test_export_json(api, survey):
    some_responses(survey, 5)
    r = api.get(url(survey, "responses/export/?format=json"))
    assert r.status_code == 200
    body = json.loads(b"".join(r.streaming_content))
    assert body["survey"] == survey.slug
    assert body["designs"]["coin"]["design"]["p_truth"] == 0.5
    hours = {"kind": "number", "text": "Hours", "min": 0.0, "max": 80.0, "required": False}
    assert body["designs"]["hours"] == hours
    assert len(body["rows"]) == 5 and set(body["rows"][0]) == {
        "coin",
        "mirror",
        "party",
        "age",
        "hours",
    }
    assert api.get(url(survey, "responses/export/?format=xml")).status_code == 400


def test_export_empty(api, survey):
    text = b"".join(api.get(url(survey, "responses/export/")).streaming_content).decode()
    assert text == "coin,mirror,party,age,hours\r\n"
    body = json.loads(
        b"".join(api.get(url(survey, "responses/export/?format=json")).streaming_content)
    )
    assert body["rows"] == []
