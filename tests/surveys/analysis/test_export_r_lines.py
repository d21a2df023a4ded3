"""Every R line the export metadata offers (``rrreg`` fields: ``rr::rrreg`` and
``RRreg::RRuni`` calls), run in R against the data frame the README's R block reads from a live
server (issue 26, item 6b: a quoted ``response = "cw_lo"`` failed in R).

What runs for real: the README's base-R reading block (``reports`` from the export over HTTP)
and R's parser on each line. What does NOT: R's ``rr`` and ``RRreg`` themselves — they are not
installable here (no CRAN; Debian packages only), so each line is evaluated against stubs with
the packages' signatures that evaluate ``response``/``group`` inside ``data`` exactly as RRuni
does and check argument types, probability counts and that every named column exists
(tests/surveys/analysis/r/rr_stubs.R says what that misses).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from surveys import services
from surveys.models import Survey
from tests.surveys.readme_snippets import README, readme_block
from testsupport import factories
from testsupport.factories import make_api_token, new_id
from testsupport.services import require_service

pytestmark = pytest.mark.django_db(transaction=True)

STUBS = Path(__file__).with_name("r") / "rr_stubs.R"
SECTION = "Exporting reports to pandas and R"
COIN = {"name": "forced_response", "p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
CROSS = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "Born in spring."}
QUESTIONS: list[dict[str, Any]] = [
    {"key": "cheated_exam", "kind": "yes_no", "design": COIN},  # the README's example line
    {"key": "mirror", "kind": "yes_no", "design": {"name": "warner", "p": 0.8}},
    {
        "key": "uq",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.7, "innocuous_prevalence": 0.5},
    },
    {
        "key": "kuk",
        "kind": "yes_no",
        "design": {"name": "two_probability", "p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
    },
    {"key": "cw_lo", "kind": "yes_no", "design": CROSS},
    {"key": "cw-2", "kind": "yes_no", "design": CROSS},  # not a syntactic R name: backquoted
    {
        "key": "cdm",
        "kind": "yes_no",
        "design": {
            "name": "cheater_detection",
            "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
        },
    },
    {"key": "drugs", "kind": "multi", "options": ["cannabis", "a b"], "design": COIN},
]


def _answers(i: int) -> dict[str, Any]:
    yes = i % 2 == 0
    return {
        "cheated_exam": yes,
        "mirror": not yes,
        "uq": yes,
        "kuk": yes,
        "cw_lo": not yes,
        "cw-2": yes,
        "cdm": {"group": 1 + i % 2, "report": i % 3 == 0},
        "drugs": {"cannabis": yes, "a b": not yes},
    }


def _rrreg_lines(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["rrreg"]] if isinstance(value.get("rrreg"), str) else []
        return own + [line for v in value.values() for line in _rrreg_lines(v)]
    if isinstance(value, list):
        return [line for v in value for line in _rrreg_lines(v)]
    return []


def _readme_example() -> str:
    section = README.read_text(encoding="utf-8").split(f"## {SECTION}\n", 1)[1]
    match = re.search(r"`(rrreg\(cheated_exam ~ 1,[^`]*)`", section)
    assert match, "the README's example rrreg line moved"
    return match.group(1)


def _run_r(script: str, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    path = tmp_path / "lines.R"
    path.write_text(script, encoding="utf-8")
    return subprocess.run(
        ["Rscript", "--vanilla", str(path)],
        capture_output=True,
        text=True,
        env=os.environ | env | {"LANG": "C.UTF-8"},
        timeout=120,
        check=False,
    )


def test_every_metadata_r_line_runs_on_the_exported_reports(live_server, tmp_path: Path):
    # Skips locally without R; CI installs Debian's r-base-core (.ci/system-packages) and
    # requires it.
    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    user = factories.make_user("rlines")
    token = make_api_token(user)
    questions = [{**q, "text": f"{q['key']}?"} for q in QUESTIONS]
    survey: Survey = factories.survey_create(
        owner=user, data={"title": "R", "questions": questions}
    )
    services.survey_open(survey=survey)
    for i in range(6):
        factories.submission_create(
            survey=survey, submission_id=new_id(), randomizer="browser", answers=_answers(i)
        )
    meta = factories.api_client(user).get(
        reverse("api-survey-export-metadata", kwargs={"slug": survey.slug})
    )
    lines = _rrreg_lines(meta.json())
    # One per yes/no question and one per multi option, plus the README's example.
    assert len(lines) == len(QUESTIONS) - 1 + 2, lines
    assert any("RRuni" in line for line in lines) and any(
        line.startswith("rrreg(") for line in lines
    )
    lines.append(_readme_example())
    (tmp_path / "lines.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    script = (
        readme_block(SECTION, "r") + f'source("{STUBS}")\nrun_lines("{tmp_path / "lines.txt"}")\n'
    )
    env = {"DENIABLE_URL": live_server.url, "DENIABLE_SURVEY": survey.slug, "DENIABLE_TOKEN": token}
    done = _run_r(script, tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"ok\t{line}" for line in lines]


def test_the_stubs_catch_a_quoted_response(live_server, tmp_path: Path):
    # The bug of issue 26: RRuni evaluates `response` inside `data`, so "cw_lo" stays a string.
    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    bad = 'RRreg::RRuni(response = "cw_lo", data = reports, model = "Crosswise", p = 0.25)'
    good = bad.replace('"cw_lo"', "cw_lo")
    missing = good.replace("cw_lo", "cw_hi")
    for line, ok in [(good, True), (bad, False), (missing, False)]:
        (tmp_path / "lines.txt").write_text(line + "\n", encoding="utf-8")
        script = (
            "reports <- data.frame(cw_lo = c(0, 1, 1))\n"
            f'source("{STUBS}")\nrun_lines("{tmp_path / "lines.txt"}")\n'
        )
        done = _run_r(script, tmp_path, {})
        assert (done.returncode == 0) is ok, (line, done.stderr)
