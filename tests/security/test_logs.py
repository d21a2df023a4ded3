"""Logs: no answers, tokens, IPs, user agents or submission ids anywhere in what the application,
Django, axes or Celery log across a whole flow — and none in the gunicorn access log format.

Every log record at DEBUG and above is captured (root logger, plus handlers on the loggers that
do not propagate) and rendered with the project's own formatter, exception text included; the
canary values are then searched for in that text and in the records' plain-valued extras.
"""

from __future__ import annotations

import inspect
import logging
import re
import runpy
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.test import Client
from django.urls import reverse

from privacy.models import Release
from privacy.tasks import release_compute
from surveys.models import Submission
from tests.security.support import PASSWORD_A, QUESTIONS

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
RESPONDENT_IP = "203.0.113.77"
RESPONDENT_UA = "UA-canary-respondent-7c1e"
RESEARCHER_IP = "198.51.100.23"
RESEARCHER_UA = "UA-canary-researcher-5b2d"
# Distinctive answers: a number no log line would contain by chance, in range and out of range.
HOURS_OK = 47.3173
HOURS_FORM = "61.4391"
HOURS_BAD = 4242.4242
QUERY_TOKEN = "qtok-canary-9f8e7d6c"
WRONG_TOKEN = "wrongtok-canary-1a2b3c"
NAMED_LOGGERS = (
    "django",
    "django.request",
    "django.server",
    "django.security",
    "axes",
    "celery",
    "celery.app.trace",
    "celery.task",
    "celery.worker",
    "privacy",
    "surveys",
    "deniable",
)
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def all_logs(caplog) -> Iterator[_Capture]:
    capture = _Capture()
    caplog.set_level(logging.DEBUG)
    loggers = [logging.getLogger()] + [logging.getLogger(n) for n in NAMED_LOGGERS]
    saved = [(lg, lg.level) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
        lg.addHandler(capture)
    try:
        yield capture
    finally:
        for lg, level in saved:
            lg.removeHandler(capture)
            lg.setLevel(level)


def _rendered(records: list[logging.LogRecord]) -> str:
    fmt = settings.LOGGING["formatters"]["plain"]["format"]
    formatter = logging.Formatter(fmt)
    lines = []
    for record in records:
        lines.append(formatter.format(record))
        # Extras a structured (JSON) formatter would print: plain values only. (django.request
        # attaches the request object itself, which no formatter here prints.)
        for key, value in vars(record).items():
            if key not in _STANDARD and isinstance(value, str | int | float | list | tuple | dict):
                lines.append(f"  extra {key}={value!r}")
    return "\n".join(lines)


def _tokens_from_page(html: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"#t=([A-Za-z0-9_\-]+)", html)))  # href and text


def test_a_full_flow_logs_nothing_identifying(all_logs, django_capture_on_commit_callbacks):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("alice", password=PASSWORD_A)
    researcher = Client(REMOTE_ADDR=RESEARCHER_IP, HTTP_USER_AGENT=RESEARCHER_UA)
    respondent = Client(REMOTE_ADDR=RESPONDENT_IP, HTTP_USER_AGENT=RESPONDENT_UA)

    # Researcher: a failed then a good login, a survey from the builder (API, session), opened
    # and invited from the pages, more invitations through the token API.
    assert (
        researcher.post(reverse("login"), {"username": "alice", "password": "bad"}).status_code
        == 200
    )
    assert (
        researcher.post(reverse("login"), {"username": "alice", "password": PASSWORD_A}).status_code
        == 302
    )
    created = researcher.post(
        "/api/v1/surveys/",
        {"title": "Logs", "access": "invite", "questions": QUESTIONS},
        content_type="application/json",
    )
    assert created.status_code == 201
    slug = created.json()["slug"]
    assert researcher.post(reverse("survey-open", args=[slug])).status_code == 302
    page = researcher.post(reverse("survey-invitations", args=[slug]), {"count": 3})
    tokens = _tokens_from_page(page.content.decode())
    api_token = researcher.post(
        "/api/v1/auth/token/",
        {"username": "alice", "password": PASSWORD_A},
        content_type="application/json",
    ).json()["token"]
    api = Client(
        REMOTE_ADDR=RESEARCHER_IP,
        HTTP_USER_AGENT=RESEARCHER_UA,
        HTTP_AUTHORIZATION=f"Token {api_token}",
    )
    tokens += api.post(
        f"/api/v1/surveys/{slug}/invitations/", {"count": 3}, content_type="application/json"
    ).json()["tokens"]
    assert len(tokens) == 6

    # Respondents: API submissions (one retried), a reused token, a wrong token, an answer out of
    # range, an old-style ?token= link, and the no-JS form.
    submission_ids = [str(uuid.uuid4()) for _ in range(4)]
    url = f"/api/v1/surveys/{slug}/responses/"

    def submit(sid: str, token: str, hours: float) -> int:
        return respondent.post(
            url,
            {
                "submission_id": sid,
                "randomizer": "browser",
                "token": token,
                "answers": {"cheated": True, "region": "South", "hours": hours},
            },
            content_type="application/json",
        ).status_code

    assert submit(submission_ids[0], tokens[0], HOURS_OK) == 201
    assert submit(submission_ids[0], tokens[0], HOURS_OK) == 200  # an idempotent retry
    assert submit(submission_ids[1], tokens[1], HOURS_OK) == 201
    assert submit(submission_ids[2], tokens[0], HOURS_OK) == 409  # the token was used
    assert submit(submission_ids[3], WRONG_TOKEN, HOURS_OK) in (400, 403, 404)
    assert submit(str(uuid.uuid4()), tokens[2], HOURS_BAD) == 400
    assert respondent.post(url, b"{not json", content_type="application/json").status_code == 400
    assert (
        respondent.get(reverse("respond", args=[slug]) + f"?token={QUERY_TOKEN}").status_code == 200
    )
    assert respondent.get(f"/s/no-such-survey/?token={QUERY_TOKEN}").status_code == 404
    form = {"q-cheated": "no", "q-region": "North", "q-hours": HOURS_FORM, "token": tokens[3]}
    assert respondent.post(reverse("respond-submit", args=[slug]), form).status_code == 302
    bad_form = {**form, "token": tokens[3]}
    assert respondent.post(reverse("respond-submit", args=[slug]), bad_form).status_code == 409
    physical_id = str(Submission.objects.filter(randomizer="physical").get().pk)

    # Researcher again: estimates (page, JSON, CSV), a release computed by the task, its results.
    assert researcher.get(reverse("survey-detail", args=[slug])).status_code == 200
    assert api.get(f"/api/v1/surveys/{slug}/estimates/").status_code == 200
    assert api.get(f"/api/v1/surveys/{slug}/responses/export/?format=csv").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        release = api.post(
            f"/api/v1/surveys/{slug}/releases/",
            {"mechanism": "laplace", "epsilon": 0.5},
            content_type="application/json",
        )
    assert release.status_code == 202
    assert Release.objects.get(pk=release.json()["id"]).status == Release.Status.DONE
    assert api.get(f"/api/v1/releases/{release.json()['id']}/").status_code == 200

    assert api.get("/api/v1/surveys/no-such-survey/").status_code == 404  # a researcher 4xx

    text = _rendered(all_logs.records)
    assert len(all_logs.records) > 10, "nothing was captured: the capture is broken"
    assert "Not Found: /api/v1/surveys/no-such-survey/" in text  # 4xx lines: paths only
    # Respondent routes are not logged at all (issue 21, item 16; test_respondent_request_logs).
    assert "/s/no-such-survey/" not in text
    canaries = {
        "respondent IP": RESPONDENT_IP,
        "researcher IP": RESEARCHER_IP,
        "respondent UA": RESPONDENT_UA,
        "researcher UA": RESEARCHER_UA,
        "query-string token": QUERY_TOKEN,
        "wrong token": WRONG_TOKEN,
        "answer (API)": str(HOURS_OK),
        "answer (no-JS form)": HOURS_FORM,
        "answer (out of range)": str(HOURS_BAD),
        "API token": api_token,
        "password": PASSWORD_A,
        "physical submission id": physical_id,
    }
    canaries |= {f"invitation token {i}": t for i, t in enumerate(tokens)}
    canaries |= {f"submission id {i}": s for i, s in enumerate(submission_ids)}
    found = {label: value for label, value in canaries.items() if value in text}
    assert not found, f"found in the logs: {found}"

    # The database holds no respondent address or user agent, nor any raw invitation token.
    dump = "".join(
        serializers.serialize("json", model.objects.all()) for model in apps.get_models()
    )
    for value in (RESPONDENT_IP, RESPONDENT_UA, QUERY_TOKEN, *tokens):
        assert value not in dump


def test_gunicorn_access_log_format_has_no_client_fields():
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    fmt = conf["access_log_format"]
    atoms = re.findall(r"%\((\{[^}]*\}[a-z]|[a-zA-Z]+)\)s", fmt)
    assert atoms, fmt
    # h: address; a: user agent; f: referer (old links carried tokens); r/q: request line and
    # query string (tokens); u: remote user; {…}i/{…}e/{…}o: arbitrary headers/environ.
    forbidden = {"h", "a", "f", "r", "q", "u", "l"}
    assert not forbidden & set(atoms), atoms
    assert not [a for a in atoms if a.startswith("{")], atoms
    assert set(atoms) <= {"m", "U", "H", "s", "B", "b", "M", "D", "L", "T", "t", "p"}
    assert conf["accesslog"] == "-" and conf["errorlog"] == "-"


def test_celery_tasks_take_only_ids():
    """A worker logs a task's name, id and (at INFO) its return value; the arguments are ids."""
    assert list(inspect.signature(release_compute.run).parameters) == ["release_id"]
    source = (ROOT / "privacy" / "services" / "enqueue.py").read_text()
    assert "release_compute.apply_async(args=[str(release_id)]" in source
    assert settings.CELERY_WORKER_HIJACK_ROOT_LOGGER is False


def test_runserver_request_log_is_quiet():
    """runserver's django.server logger prints the client address on every request."""
    server = settings.LOGGING["loggers"]["django.server"]
    assert server["level"] == "WARNING" and server["propagate"] is False


RUNSERVER_CANARY = "rs-canary-token-4e5f6a"


def test_runserver_request_lines_carry_no_query_string(all_logs):
    """`make run` serves through runserver, whose ``django.server`` logger prints the request line
    of every 4xx at WARNING (issue 11 §10: the full line, query string and token included). The
    real server class and handler, on a free port, with the project's logging configuration."""
    import threading
    import urllib.error
    import urllib.request

    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

    server = WSGIServer(("127.0.0.1", 0), WSGIRequestHandler, allow_reuse_address=True)
    # WSGIHandler directly: get_wsgi_application() would run django.setup() again, whose logging
    # configuration would drop the capture handlers.
    server.set_app(WSGIHandler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for path in (
            f"/no-such-page/?token={RUNSERVER_CANARY}",  # 404
            f"/api/v1/surveys/?t={RUNSERVER_CANARY}&x=1",  # 401/403: no credentials
        ):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(base + path, timeout=10)
            assert 400 <= info.value.code < 500
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    server_records = [r for r in all_logs.records if r.name == "django.server"]
    text = _rendered(server_records)
    assert '"GET /no-such-page/ HTTP/1.1" 404' in text, text  # the line is there, path only
    assert "/api/v1/surveys/ HTTP/1.1" in text, text
    assert RUNSERVER_CANARY not in _rendered(all_logs.records)
