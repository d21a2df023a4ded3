"""One CSV rule for every CSV the app serves (DESIGN §8.4, docs/exports.md; issue 21 item 7,
issue 22 item 8): each text cell is ``'`` + the exact text, written by the one writer
(``deniable/csv_cells.py``), and the README's own pandas lines (and its R line where R is
installed) read every one of them back exactly.

The list of CSV endpoints is checked against the URL configuration: a route whose view can
answer CSV and is not listed here fails :func:`test_every_csv_route_is_listed`, so a new CSV
cannot skip the reading test. A static check makes ``deniable/csv_cells.py`` the only module that
writes CSV.
"""

from __future__ import annotations

import csv
import inspect
import io
import math
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from deniable.renderers import CSVRenderer
from surveys.models import Question
from tests.surveys.readme_snippets import R_DUMP, README, readme_block
from testsupport import factories
from testsupport.factories import make_api_token, make_release, make_survey, submit
from testsupport.services import require_service

pytestmark = pytest.mark.django_db

SECTION = "Exporting reports to pandas and R"
ROOT = README.parent

# The attack of issue 21 item 7 (formula injection through options), and text that pandas or R
# would misread untagged ("'" first, NA, 007, TRUE) or that the old release CSV broke.
OPTIONS = [
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "+41 22",
    "-1",
    "'quoted'",
    "NA",
    "007",
    "TRUE",
    "Laplace",
    "a,b\nc",
    "  spaces  ",
]
TEAMS = ['=HYPERLINK("http://x.invalid")', "@team", "NA"]

# Every route that can answer CSV: (URL name, how the CSV is asked for). The invitations page
# serves its CSV inside the page (a data: URL); the others are API routes.
CSV_ROUTES = {
    "api-survey-export": "GET ?format=csv",
    "api-survey-export-shuffled": "GET ?format=csv (closed surveys: the shuffled file)",
    "api-survey-estimates": "GET ?format=csv (also group_by, compare)",
    "api-survey-regression": "GET ?format=csv",
    "privacy-release-detail": "GET ?format=csv",
    "api-survey-invitations": 'POST {"format": "csv"}',
    "survey-invitations": "POST (page): the download link's data: URL",
    "api-survey-audit": "GET ?format=csv (the survey's audit log, owner)",
    "api-audit": "GET ?format=csv (the site's audit log, staff)",
}
# Views whose code mentions CSV without serving one (the reason is the documentation).
MENTIONS_CSV_ONLY = {
    "api-survey-export-metadata": "describes how the export's CSV is written",
    "survey-audit": "links to the API's CSV of the log",
    "site-audit": "links to the API's CSV of the log",
}

CSV_HINTS = re.compile(r"text/csv|CSVTable|CSVRenderer|csv_cells|_csv\(|csv_url")


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def _may_serve_csv(pattern: URLPattern) -> bool:
    callback = pattern.callback
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None) or callback
    if CSVRenderer in getattr(view, "renderer_classes", []):
        return True
    try:
        source = inspect.getsource(view)
    except (OSError, TypeError):
        return False
    # A page view's helpers in the same module count too (the invitations page builds its CSV
    # in a helper it calls).
    module = inspect.getmodule(view)
    names = set(re.findall(r"\b(_\w+)\(", source))
    helpers = [getattr(module, name) for name in names if callable(getattr(module, name, None))]
    for helper in helpers:
        try:
            source += inspect.getsource(helper)
        except (OSError, TypeError):
            continue
    return bool(CSV_HINTS.search(source))


def test_every_csv_route_is_listed():
    found = {p.name for _, p in _routes(get_resolver().url_patterns) if _may_serve_csv(p)}
    assert found - set(MENTIONS_CSV_ONLY) == set(CSV_ROUTES)


def test_only_the_one_writer_writes_csv():
    """``import csv`` / ``csv.writer`` live only in deniable/csv_cells.py; a module that serves
    ``text/csv`` gets its text from that writer."""
    for app in ("accounts", "surveys", "privacy", "deniable"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            name = path.relative_to(ROOT).as_posix()
            if name == "deniable/csv_cells.py":
                continue
            assert not re.search(r"^\s*(import csv|from csv import)", text, re.M), name
            assert "csv.writer" not in text and "DictWriter" not in text, name


# --- one survey, every CSV ------------------------------------------------------------------


@pytest.fixture
def survey_and_client(django_user_model) -> tuple[Any, Client, str]:
    user = django_user_model.objects.create_user(username="csv-reader", password="pw-12345678")
    placeholders = [f"o{i}" for i in range(len(OPTIONS))]
    survey = make_survey(
        user,
        {
            "title": "Every CSV",
            "access": "invite",
            "budget": {"epsilon": 5.0, "delta": 1e-6},
            "questions": [
                {"key": "cheated_exam", "text": "Cheated?", "kind": "yes_no"},
                {
                    "key": "pick",
                    "text": "Pick",
                    "kind": "choice",
                    "options": placeholders,
                    "design": {"name": "k_rr", "epsilon": 2.0},
                },
                {"key": "team", "text": "Team", "kind": "category", "options": ["a", "b", "c"]},
                {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
            ],
        },
        open_=False,
    )
    # Exact texts, unstripped (the builder would trim the spaces).
    Question.objects.filter(survey=survey, key="pick").update(options=OPTIONS)
    Question.objects.filter(survey=survey, key="team").update(options=TEAMS)
    from surveys import services

    services.survey_open(survey=survey)
    survey.refresh_from_db()
    tokens = factories.make_invitations(survey, 60)
    for i, token in enumerate(tokens):
        submit(
            survey,
            {
                "cheated_exam": i % 3 == 0,
                "pick": OPTIONS[i % len(OPTIONS)],
                "team": TEAMS[i % len(TEAMS)],
                "hours": float(i % 17),
            },
            token=token,
        )
    survey.refresh_from_db()
    return survey, Client(HTTP_AUTHORIZATION=f"Token {make_api_token(user)}"), user


def _bodies(survey: Any, client: Client, user: Any) -> dict[str, bytes]:
    api = f"/api/v1/surveys/{survey.slug}"
    release = make_release(survey, user, {"mechanism": "laplace", "epsilon": 1.0})
    assert release.status == "done"
    invited = client.post(
        f"{api}/invitations/", {"count": 2, "format": "csv"}, content_type="application/json"
    )
    client.force_login(user)
    page = client.post(f"/surveys/{survey.slug}/invitations/", {"count": "2"})
    match = re.search(r'href="data:text/csv;charset=utf-8,([^"]*)"', page.content.decode())
    assert match, "the invitations page has its CSV download"
    bodies = {
        "api-survey-export": b"".join(client.get(f"{api}/responses/export/?format=csv")),
        "api-survey-estimates": client.get(f"{api}/estimates/?format=csv").content,
        "api-survey-estimates grouped": client.get(
            f"{api}/estimates/?format=csv&group_by=team&compare=true"
        ).content,
        "api-survey-regression": client.get(
            f"{api}/regression/?format=csv&outcome=cheated_exam&predictors=team,hours"
        ).content,
        "privacy-release-detail": client.get(f"/api/v1/releases/{release.pk}/?format=csv").content,
        "api-survey-invitations": invited.content,
        "survey-invitations": unquote(match.group(1).replace("&amp;", "&")).encode("utf-8"),
        "api-survey-audit": b"".join(client.get(f"{api}/audit/?format=csv")),
    }
    # The shuffled file exists for a closed survey only (docs/exports.md#the-shuffled-file).
    from surveys import services

    services.survey_close(survey=survey)
    shuffled = client.get(f"{api}/responses/export/shuffled/?format=csv")
    assert shuffled.status_code == 200, shuffled.content
    bodies["api-survey-export-shuffled"] = shuffled.content
    user.is_staff = True
    user.save()
    bodies["api-audit"] = b"".join(client.get("/api/v1/audit/?format=csv"))
    assert invited.status_code == 201 and invited["Content-Type"].startswith("text/csv")
    return bodies


# What each file must give back, read the README's way: column → values that must all appear.
EXPECTED: dict[str, dict[str, set[str]]] = {
    "api-survey-audit": {"action": {"survey.create", "release.request", "invitations.create"}},
    "api-audit": {"action": {"survey.create", "survey.open", "export.download"}},
    "api-survey-export": {"pick": set(OPTIONS), "team": set(TEAMS)},
    "api-survey-export-shuffled": {"pick": set(OPTIONS)},
    "api-survey-estimates": {"key": {"cheated_exam", "pick", "team"}, "option": set(OPTIONS)},
    "api-survey-estimates grouped": {"group": set(TEAMS), "option": set(OPTIONS)},
    "api-survey-regression": {
        "term": {"(Intercept)", "hours"} | {f"team={t}" for t in TEAMS[1:]},
        "outcome": {"cheated_exam"},
    },
    "privacy-release-detail": {
        "question": {"cheated_exam", "pick"},
        "option": set(OPTIONS),
        "mechanism": {"laplace"},
    },
}


class _OneFile(BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/csv; charset=utf-8")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


def _served(body: bytes) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``body`` over HTTP, so the README's lines read it from a URL as they are written
    (a POST's CSV included)."""
    handler = type("Handler", (_OneFile,), {"body": body})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/file.csv"


def _readme_pandas(url: str) -> Any:
    """The README's pandas block with only its ``url = …`` line pointed at ``url``."""
    block = readme_block(SECTION, "python")
    assert len(re.findall(r"^url = .*$", block, re.M)) == 1
    block = re.sub(r"^url = .*$", f"url = {url!r}", block, flags=re.M)
    os.environ.setdefault("DENIABLE_TOKEN", "unused")
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    return namespace["reports"]


def _raw(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def test_every_csv_tags_its_text_and_reads_back_exactly_with_the_readme_lines(
    survey_and_client, monkeypatch
):
    try:
        import pandas
    except ImportError:
        pandas = None
    require_service(pandas is not None, "pandas (requirements-dev)")
    survey, client, user = survey_and_client
    bodies = _bodies(survey, client, user)
    assert {name.split(" ")[0] for name in bodies} == set(CSV_ROUTES)
    monkeypatch.setenv("DENIABLE_TOKEN", "unused")
    for name, body in bodies.items():
        header, *rows = _raw(body)
        assert rows, name
        text_columns = set()
        for row in rows:
            for column, cell in zip(header, row, strict=True):
                if cell.startswith("'"):
                    text_columns.add(column)
                elif cell:
                    # Untagged cells are numbers; nothing a spreadsheet evaluates.
                    float(cell)
                    assert cell[0] not in "=+@\t\r", (name, column, cell)
        server, url = _served(body)
        try:
            frame = _readme_pandas(url)
        finally:
            server.shutdown()
        assert list(frame.columns) == header, name
        for column in header:
            raw = [row[header.index(column)] for row in rows]
            got = list(frame[column])
            if column in text_columns:
                # The README's lines give each text exactly: the cell without its tag.
                want = [cell[1:] if cell else None for cell in raw]
                assert [None if _missing(v) else v for v in got] == want, (name, column)
            else:
                assert pandas.api.types.is_numeric_dtype(frame[column]), (name, column)
        for column, values in EXPECTED.get(name, {}).items():
            assert values <= set(frame[column].dropna()), (name, column)
        if name.endswith("invitations"):
            links = list(frame["link"])
            assert len(links) == 2
            assert all(link.startswith("http://testserver/s/") for link in links)
    # The attack of issue 21 item 7: the release CSV's options are tagged, never bare.
    release = _raw(bodies["privacy-release-detail"])
    cells = {cell for row in release[1:] for cell in row}
    assert "'=cmd|' /C calc'!A0" in cells and "=cmd|' /C calc'!A0" not in cells
    assert "'@SUM(1+1)" in cells and "@SUM(1+1)" not in cells


def test_every_csv_reads_back_exactly_with_the_readme_r_lines(survey_and_client, tmp_path: Path):
    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    survey, client, user = survey_and_client
    block = readme_block(SECTION, "r")
    assert len(re.findall(r"^export <- .*$", block, re.M)) == 1
    for name, body in _bodies(survey, client, user).items():
        header, *rows = _raw(body)
        server, url = _served(body)
        script = tmp_path / "read.R"
        script.write_text(
            re.sub(r"^export <- .*$", f'export <- url("{url}", headers = auth)', block, flags=re.M)
            + R_DUMP,
            encoding="utf-8",
        )
        try:
            done = subprocess.run(
                ["Rscript", "--vanilla", str(script)],
                capture_output=True,
                text=True,
                env=os.environ | {"DENIABLE_TOKEN": "unused", "LANG": "C.UTF-8"},
                timeout=120,
                check=False,
            )
        finally:
            server.shutdown()
        assert done.returncode == 0, (name, done.stderr)
        r_header, *lines = done.stdout.splitlines()
        assert r_header.split("\t") == header, name
        got = [line.split("\t") for line in lines]
        assert len(got) == len(rows), name
        for r_row, row in zip(got, rows, strict=True):
            for column, r_cell, cell in zip(header, r_row, row, strict=True):
                if cell.startswith("'"):
                    # R turns a CR into LF (docs/exports.md); everything else is exact.
                    want = cell[1:].replace("\r\n", "\n").replace("\r", "\n")
                    assert bytes.fromhex(r_cell).decode("utf-8") == want, (name, column)
                elif cell == "":
                    assert r_cell == "NA", (name, column)
                else:
                    assert float(r_cell) == float(cell), (name, column)
