"""Exports survive any text: the README's own pandas (and, where R is installed, R) commands read
the reports CSV and the estimates CSV back exactly, from a live server, over HTTP.

The snippets are taken from README.md at test time (``readme_snippets``), so a README edit that
breaks them fails here. Options are written straight into the question rows (bypassing the
builder's stripping) so that leading/trailing spaces, a lone ``'`` and the like are exported too.
"""

from __future__ import annotations

import csv
import io
import math
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveys import services
from surveys.models import Question, Survey
from tests.surveys.readme_snippets import R_DUMP, README, readme_block
from testsupport import factories
from testsupport.factories import make_api_token, new_id
from testsupport.services import require_service

pytestmark = pytest.mark.django_db(transaction=True)

SECTION = "Exporting reports to pandas and R"
README_DIR = README.parent

# Everything that broke or could break a CSV reader or a spreadsheet.
HOSTILE = [
    "Team #2",
    "# starts with a hash",
    "a,b",
    ",",
    'say "hi"',
    '"',
    "line one\nline two",
    "carriage\rreturn",
    "crlf\r\ninside",
    "  leading spaces",
    "trailing spaces  ",
    "\ttab first",
    "=1+1",
    '=HYPERLINK("http://example.invalid","x")',
    "+41 22",
    "-1",
    "-",
    "@SUM(A1:A2)",
    "'",
    "''",
    "'=1",
    "NA",
    "N/A",
    "None",
    "null",
    "NaN",
    "nan",
    "TRUE",
    "FALSE",
    "007",
    "1e5",
    "1,5",
    "naïve ünïcödé 日本語 🙂",
    "\u00a0no-break space",
    "back\\slash",
    "semi;colon",
]
NUMBERS = [-3.5, 0.0, 0.1, 1e-07, 12345678.901234, 80.0]


def _text_survey(owner: Any, options: list[str]) -> Survey:
    """An open survey with a yes/no, a choice and a category question over ``options`` and a
    number question; the options are then set to the exact texts given (no stripping)."""
    placeholders = [f"o{i}" for i in range(len(options))]
    survey = factories.survey_create(
        owner=owner,
        data={
            "title": "Hostile text",
            "questions": [
                {"key": "coin", "text": "Coin?", "kind": "yes_no"},
                {
                    "key": "pick",
                    "text": "Pick one",
                    "kind": "choice",
                    "options": placeholders,
                    "design": {"name": "k_rr", "epsilon": 1.0},
                },
                {
                    "key": "team",
                    "text": "Team",
                    "kind": "category",
                    "options": placeholders,
                    "required": False,
                },
                {
                    "key": "1-x",
                    "text": "A number",
                    "kind": "number",
                    "min": -10,
                    "max": 1e9,
                    "required": False,
                },  # left out by some rows: NA in every reader
            ],
        },
    )
    Question.objects.filter(survey=survey, key__in=["pick", "team"]).update(options=options)
    services.survey_open(survey=survey)
    survey.refresh_from_db()
    return survey


def _fill(survey: Survey, options: list[str]) -> Counter:
    """One submission per option (answering both text questions with it, the number cycling
    through NUMBERS) plus one that skips the direct questions; returns the expected rows."""
    expected: Counter = Counter()
    for i, option in enumerate(options):
        number = NUMBERS[i % len(NUMBERS)]
        answers = {"coin": i % 2 == 0, "pick": option, "team": option, "1-x": number}
        factories.submission_create(
            survey=survey, submission_id=new_id(), randomizer="browser", answers=answers
        )
        expected[(int(i % 2 == 0), option, option, number)] += 1
    skipped = {"coin": False, "pick": options[-1]}  # the direct questions may be skipped
    factories.submission_create(
        survey=survey, submission_id=new_id(), randomizer="browser", answers=skipped
    )
    expected[(0, options[-1], None, None)] += 1
    return expected


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _row(values: list[Any]) -> tuple:
    return tuple(None if _missing(v) else v for v in values)


@pytest.fixture
def researcher(django_user_model) -> tuple[Any, str]:
    user = django_user_model.objects.create_user(username="reader", password="reader-pw-123")
    return user, make_api_token(user)


@pytest.fixture
def pandas() -> Any:
    try:
        import pandas
    except ImportError:
        pandas = None
    require_service(pandas is not None, "pandas (requirements-dev)")
    return pandas


def run_readme_pandas(monkeypatch: Any, base: str, slug: str, token: str) -> Any:
    """The README's pandas block, exactly as written; returns its ``reports`` DataFrame."""
    monkeypatch.setenv("DENIABLE_URL", base)
    monkeypatch.setenv("DENIABLE_SURVEY", slug)
    monkeypatch.setenv("DENIABLE_TOKEN", token)
    namespace: dict[str, Any] = {}
    exec(compile(readme_block(SECTION, "python"), "README.md", "exec"), namespace)
    return namespace["reports"]


def test_readme_pandas_reads_every_hostile_value_exactly(
    live_server, researcher, monkeypatch, pandas
):
    user, token = researcher
    survey = _text_survey(user, HOSTILE)
    expected = _fill(survey, HOSTILE)
    reports = run_readme_pandas(monkeypatch, live_server.url, survey.slug, token)
    assert list(reports.columns) == ["coin", "pick", "team", "1-x"]
    got = Counter(_row(list(r)) for r in reports.itertuples(index=False))
    assert got == expected
    # Types a user can compute with: the numbers are numbers, the options strings.
    assert pandas.api.types.is_numeric_dtype(reports["coin"])
    assert pandas.api.types.is_numeric_dtype(reports["1-x"])
    assert all(isinstance(v, str) for v in reports["team"].dropna())


def test_the_raw_csv_is_formula_safe(live_server, researcher):
    """No cell of either CSV starts with a character a spreadsheet would evaluate."""
    from django.test import Client

    user, token = researcher
    survey = _text_survey(user, HOSTILE)
    _fill(survey, HOSTILE)
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    api = f"/api/v1/surveys/{survey.slug}"
    reports = b"".join(client.get(f"{api}/responses/export/?format=csv").streaming_content)
    estimates = client.get(f"{api}/estimates/?format=csv&group_by=team").content
    for body in (reports, estimates):
        rows = list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))
        cells = [cell for row in rows[1:] for cell in row]
        assert cells
        for cell in cells:
            # A number (possibly negative) or a tagged text; never a bare = + @ tab or CR.
            if cell and cell[0] in "=+-@\t\r":
                float(cell)  # only a real number may start with "-"
                assert cell[0] == "-", cell
    raw_options = {row[1] for row in csv.reader(io.StringIO(reports.decode(), newline=""))}
    assert "'=1+1" in raw_options and "'Team #2" in raw_options and "=1+1" not in raw_options


def test_readme_pandas_lines_read_the_estimates_csv(live_server, researcher, pandas):
    """The README says the estimates CSV reads with the same two lines; options come back exact
    in ``option`` and ``group``."""
    user, token = researcher
    survey = _text_survey(user, HOSTILE)
    _fill(survey, HOSTILE)
    url = f"{live_server.url}/api/v1/surveys/{survey.slug}/estimates/?format=csv&group_by=team"
    estimates = pandas.read_csv(url, storage_options={"Authorization": f"Token {token}"})
    text = estimates.select_dtypes(exclude="number").columns
    estimates[text] = estimates[text].apply(lambda column: column.str[1:])
    team = estimates[(estimates["key"] == "team") & estimates["group"].isna()]
    assert list(team["option"]) == HOSTILE
    assert set(estimates["group"].dropna()) == set(HOSTILE)
    assert set(estimates["key"]) == {"coin", "pick", "team", "1-x"}
    assert pandas.api.types.is_numeric_dtype(estimates["estimate"])


# Option texts as users could type them, and worse: any Unicode but surrogates (not encodable)
# and NUL (PostgreSQL's JSON cannot store it).
OPTION = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=25,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(options=st.lists(OPTION, min_size=2, max_size=6, unique=True))
def test_readme_pandas_round_trips_any_text(live_server, researcher, monkeypatch, pandas, options):
    user, token = researcher
    survey = _text_survey(user, options)
    expected = _fill(survey, options)
    reports = run_readme_pandas(monkeypatch, live_server.url, survey.slug, token)
    got = Counter(_row(list(r)) for r in reports.itertuples(index=False))
    assert got == expected


# --- R ------------------------------------------------------------------------------------------


def _r_value(cell: str, numeric: bool) -> Any:
    if cell == "NA":
        return None
    return float(cell) if numeric else bytes.fromhex(cell).decode("utf-8")


def test_readme_r_reads_every_hostile_value_exactly(live_server, researcher, tmp_path: Path):
    # Skips locally without R; CI installs Debian's r-base-core (.ci/system-packages) and
    # requires it.
    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    user, token = researcher
    survey = _text_survey(user, HOSTILE)
    expected = _fill(survey, HOSTILE)
    script = tmp_path / "read.R"
    script.write_text(readme_block(SECTION, "r") + R_DUMP, encoding="utf-8")
    env = os.environ | {
        "DENIABLE_URL": live_server.url,
        "DENIABLE_SURVEY": survey.slug,
        "DENIABLE_TOKEN": token,
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        ["Rscript", "--vanilla", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.splitlines()
    assert header.split("\t") == ["coin", "pick", "team", "1-x"]
    numeric = [True, False, False, True]
    got: Counter = Counter()
    for line in lines:
        cells = line.split("\t")
        values = [_r_value(c, n) for c, n in zip(cells, numeric, strict=True)]
        values[0] = None if values[0] is None else int(values[0])
        got[tuple(values)] += 1

    # R's text connections turn a carriage return into a line feed, even inside a quoted field
    # ("\r\n" and "\r" → "\n"); docs/exports.md says so. Everything else is exact.
    def r_view(value: Any) -> Any:
        return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value

    assert got == Counter({tuple(map(r_view, row)): n for row, n in expected.items()})
    assert any("\r" in option for option in HOSTILE)  # the caveat is really exercised


def test_docs_show_the_same_read_commands_as_the_readme():
    """docs/exports.md repeats the README's pandas and R lines; both stay the tested ones."""
    docs = (README_DIR / "docs" / "exports.md").read_text(encoding="utf-8")
    for language in ("python", "r"):
        assert f"```{language}\n{readme_block(SECTION, language)}```" in docs, language
