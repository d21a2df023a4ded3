"""The kind × surface matrix without a browser (issue 23 item 7): one survey holding one question
per registered kind (and per yes/no design), created through the builder's POST path with its
Spanish translation, answered once through the API, then read on every surface: the detail, the
results page, the reports export (CSV by csv, pandas and R; JSON; metadata), a central-DP
release (the Celery task run eagerly on commit, like the releases API tests) and the translation.
The pages in Chromium are in tests/e2e/test_kind_matrix.py."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess

import pytest
from django.test import Client
from rest_framework.test import APIClient

from surveys.models import Submission
from tests.surveys.api.support import open_survey, post_response, url
from tests.surveys.kinds import matrix_support as m

pytestmark = pytest.mark.django_db

ALL = m.matrix_questions()
IDS = [q["key"] for _, q, _ in ALL]


@pytest.fixture
def survey(api):
    survey = open_survey(api, m.survey_body())
    answers = {q["key"]: a for _, q, a in ALL}
    r = post_response(APIClient(), survey, answers)
    assert r.status_code in (200, 201), r.content
    return survey


def test_the_matrix_has_every_kind_and_every_yes_no_design():
    from surveys.kinds.registry import kinds

    assert {kind.name for kind, _, _ in ALL} == {kind.name for kind in kinds()}
    designs = {(q.get("design") or {}).get("name") for kind, q, _ in ALL if kind.name == "yes_no"}
    assert designs == {None, *(spec["name"] for spec in m.yes_no_designs())}


def test_every_yes_no_design_of_the_registry_is_a_cell():
    """A design registered for yes/no questions is in the matrix unless a kind owns it."""
    from dpcore.local import designs as registry
    from surveys.kinds.registry import kinds

    binary = {e.name for e in registry.registered() if "binary" in e.serves and not e.grouped}
    owned = {kind.name for kind in kinds()}
    assert {spec["name"] for spec in m.yes_no_designs()} == binary - owned


def test_the_builder_stores_each_question_as_sent(api, survey):
    detail = api.get(url(survey)).json()
    by_key = {q["key"]: q for q in detail["questions"]}
    for _, question, _ in ALL:
        stored = by_key[question["key"]]
        for field, value in question.items():
            if field == "design":  # the detail adds what the design implies (ε, …)
                assert stored[field] | value == stored[field], question["key"]
            else:
                assert stored[field] == value, (question["key"], field)
    assert Submission.objects.get(survey=survey).answers == {q["key"]: a for _, q, a in ALL}


def test_the_results_page_shows_every_question(api, alice, survey):
    page = Client()
    page.force_login(alice)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    for _, question, _ in ALL:
        assert question["text"] in html, question["key"]
    estimates = api.get(url(survey, "estimates/"), {"format": "json"}).json()
    keys = [e["key"] for e in estimates["questions"]]
    assert keys == IDS


def _csv_rows(api, survey) -> tuple[list[str], list[dict[str, str]], str]:
    r = api.get(url(survey, "responses/export/"), {"format": "csv"})
    assert r.status_code == 200
    text = b"".join(r.streaming_content).decode()
    reader = csv.DictReader(io.StringIO(text))
    rows = list(reader)
    return list(reader.fieldnames or []), rows, text


def test_the_csv_export_has_each_kinds_columns_and_one_row(api, survey, tmp_path):
    header, rows, text = _csv_rows(api, survey)
    expected = [c for kind, q, _ in ALL for c in m.export_columns(kind, q)]
    assert header == expected
    assert len(rows) == 1 and all(rows[0][c] != "" for c in expected)
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(io.StringIO(text))
    assert list(frame.columns) == expected and len(frame) == 1
    if shutil.which("Rscript"):
        path = tmp_path / "reports.csv"
        path.write_text(text)
        out = subprocess.run(
            ["Rscript", "-e", f"d <- read.csv('{path}', check.names=FALSE); cat(nrow(d), ncol(d))"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        assert out.stdout.split() == ["1", str(len(expected))]


def test_the_json_export_and_metadata_name_every_question(api, survey):
    r = api.get(url(survey, "responses/export/"), {"format": "json"})
    body = json.loads(b"".join(r.streaming_content))
    assert len(body["rows"]) == 1
    expected = {c for kind, q, _ in ALL for c in m.export_columns(kind, q)}
    assert set(body["rows"][0]) == expected
    meta = api.get(url(survey, "responses/export/metadata/")).json()
    assert [c["key"] for c in meta["columns"]] == [
        c for kind, q, _ in ALL for c in m.export_columns(kind, q)
    ]


def test_a_release_has_an_entry_for_every_question(api, survey, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(url(survey, "releases/"), {"mechanism": "laplace", "epsilon": 0.5}, "json")
    assert r.status_code == 202, r.content
    detail = api.get(r.json()["url"]).json()
    assert detail["status"] == "done", detail
    assert [q["key"] for q in detail["results"]["questions"]] == IDS


def test_the_spanish_translation_is_stored_and_served(api, survey):
    detail = api.get(url(survey)).json()
    for _, question, _ in ALL:
        es = detail["translations"]["es"]["questions"][question["key"]]
        assert es == m.spanish(question)
    html = Client().get(f"/s/{survey.slug}/?lang=es", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    for _, question, _ in ALL:
        assert m.spanish(question)["text"] in html, question["key"]
