"""Respondent routes are not logged with their time by default (issue 21, item 16).

A log line per submission (gunicorn's access log, ``django.request``'s 4xx/5xx lines, runserver's
``django.server`` lines) carries its arrival time — and the log's own timestamp, which every
container log driver adds — so it orders the respondents and times each one, which is exactly what
the stored data avoids (dates only, k-batches). Respondent routes are ``/s/…`` and the responses
and invitation-check API; researcher routes are still logged.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.test import Client, override_settings

from testsupport.factories import make_survey, make_user, survey_body
from testsupport.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
RESPONDENT_PATHS = [
    "/s/abcdefghij/",
    "/s/abcdefghij/submit/",
    "/api/v1/surveys/abcdefghij/responses/",
    "/api/v1/surveys/abcdefghij/invitations/check/",
]
RESEARCHER_PATHS = ["/api/v1/surveys/abcdefghij/", "/api/v1/surveys/abcdefghij/responses/export/"]


@pytest.fixture
def gunicorn_log(tmp_path):
    """The real gunicorn.conf.py in front of a WSGI app that answers 404 to everything."""
    port = free_port()
    log = tmp_path / "gunicorn.log"
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DENIABLE_LOG_RESPONDENT_REQUESTS", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "tests.security.wsgi_404:app"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )

    def get(path: str) -> None:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5)
        except urllib.error.HTTPError:
            pass

    def up() -> bool:
        try:
            get("/healthz")
            return True
        except OSError:
            return False

    try:
        assert wait_until(up, 30), log.read_text()
        yield get, log
    finally:
        process.terminate()
        process.wait(10)


def test_gunicorn_access_log_leaves_respondent_routes_out(gunicorn_log) -> None:
    get, log = gunicorn_log
    for path in RESPONDENT_PATHS + RESEARCHER_PATHS:
        get(path)
    get("/s/abcdefghij/?token=x")
    assert wait_until(lambda: RESEARCHER_PATHS[-1] in log.read_text(), 10), log.read_text()
    text = log.read_text()
    for path in RESEARCHER_PATHS:  # still logged: the operator's view of the API
        assert f" {path} " in text, text
    for line in text.splitlines():
        assert "/s/" not in line and "/responses/ " not in line and "/check/" not in line, line


@pytest.mark.django_db
@pytest.mark.parametrize("logger", ["django.request", "django.server"])
def test_django_request_logs_leave_respondent_routes_out(caplog, logger) -> None:
    survey = make_survey(make_user("owner"), survey_body())
    client = Client()
    with caplog.at_level(logging.DEBUG):
        # A bad submission (400), an unknown survey's page (404), a bad invitation check (400).
        client.post(
            f"/api/v1/surveys/{survey.slug}/responses/", "{", content_type="application/json"
        )
        client.get("/s/nosuchsurvey/")
        client.post(f"/api/v1/surveys/{survey.slug}/invitations/check/", {})
        client.get("/api/v1/surveys/nosuchsurvey/")  # a researcher route: still logged
        if logger == "django.server":  # runserver's line, as its handler would log it
            logging.getLogger(logger).warning(
                '"%s" %s %s', f"POST /s/{survey.slug}/submit/ HTTP/1.1", "400", "12"
            )
            logging.getLogger(logger).warning('"%s" %s %s', "GET /nope/ HTTP/1.1", "404", "12")
    lines = [r.getMessage() for r in caplog.records if r.name == logger]
    assert not [line for line in lines if "/s/" in line or "/responses/" in line], lines
    assert not [line for line in lines if "/invitations/check/" in line], lines
    if logger == "django.request":
        assert any("/api/v1/surveys/nosuchsurvey/" in line for line in lines), lines
    else:
        assert any("/nope/" in line for line in lines), lines


@pytest.mark.django_db
@override_settings(DENIABLE_LOG_RESPONDENT_REQUESTS=True)
def test_an_operator_can_turn_them_back_on(caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        Client().get("/s/nosuchsurvey/")
    assert any("/s/nosuchsurvey/" in r.getMessage() for r in caplog.records), caplog.records
