"""The container set-up, read as data: Dockerfile, docker-compose.yml, .dockerignore, and the web
health check script (docs/deployment.md). No Docker daemon needed."""

from __future__ import annotations

import fnmatch
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from deniable import healthcheck

ROOT = Path(__file__).resolve().parents[1]


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for keyword, rest in dockerfile_instructions():
        if keyword == "FROM":
            result.append([])
        if result:
            result[-1].append((keyword, rest))
    return result


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_dockerfile_is_multi_stage_with_a_wheel_builder():
    builder, runtime = stages()
    assert builder[0][1].endswith("AS builder")
    assert any(k == "RUN" and "pip wheel" in r for k, r in builder)
    assert runtime[0][1].endswith("AS runtime")
    installs = [r for k, r in runtime if k == "RUN" and "pip install" in r]
    assert len(installs) == 1
    # Offline, from the builder's wheels, runtime requirements only.
    assert "--no-index" in installs[0] and "from=builder" in installs[0]
    assert "requirements-dev" not in " ".join(r for _, r in runtime)


def test_runtime_stage_has_no_compiler_and_runs_as_a_non_root_user():
    runtime = stages()[-1]
    text = " ".join(r for _, r in runtime)
    for tool in ("build-essential", "gcc", "libpq-dev", "python3-dev"):
        assert tool not in text
    users = [r for k, r in runtime if k == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    # The last USER comes before the command: the app never runs as root.
    keywords = [k for k, _ in runtime]
    assert keywords.index("CMD") > max(i for i, k in enumerate(keywords) if k == "USER")


def test_dockerfile_healthcheck_probes_the_health_endpoint_without_curl():
    checks = [r for k, r in dockerfile_instructions() if k == "HEALTHCHECK"]
    assert len(checks) == 1
    assert "deniable.healthcheck" in checks[0] and "curl" not in checks[0]
    assert healthcheck.DEFAULT_URL.endswith("/healthz")


def test_migrations_run_once_in_their_own_service(compose):
    services = compose["services"]
    migrate = services["migrate"]
    assert migrate["command"][-3:] == ["manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"
    for name in ("web", "worker", "beat"):
        command = services[name]["command"]
        assert "migrate" not in " ".join(command if isinstance(command, list) else [command])
        depends = services[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"


def test_every_long_running_service_has_a_health_check(compose):
    services = compose["services"]
    tests = {
        name: " ".join(services[name]["healthcheck"]["test"])
        for name in services
        if name != "migrate"
    }
    assert "pg_isready" in tests["postgres"]
    assert "redis-cli ping" in tests["redis"]
    assert "deniable.healthcheck" in tests["web"]
    assert "inspect ping" in tests["worker"] and "celery@$$HOSTNAME" in tests["worker"]
    assert "deniable.beat" in tests["beat"]
    assert "deniable.beat:HeartbeatScheduler" in services["beat"]["command"]


def test_dockerignore_keeps_local_state_and_dev_files_out():
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def ignored(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        return any(
            fnmatch.fnmatch(prefix, pattern.removeprefix("**/"))
            or fnmatch.fnmatch(parts[-1], pattern.removeprefix("**/"))
            for pattern in patterns
            for prefix in prefixes
        )

    for path in (
        ".git/HEAD", ".venv/bin/python", ".venv-bench/bin/python", "node_modules/axe-core/x.js",
        "var/db.sqlite3", "var/static/x.css", "db.sqlite3", "bench/out/run.json",
        "surveys/__pycache__/models.cpython-311.pyc", ".pytest_cache/v", ".ruff_cache/x",
        ".mypy_cache/x", ".hypothesis/examples/x", "tests/conftest.py", ".env",
    ):  # fmt: skip
        assert ignored(path), path
    for path in ("manage.py", "gunicorn.conf.py", "requirements.txt", "constraints.txt",
                 "deniable/settings/prod.py", "surveys/models.py", "templates/base.html",
                 "static/js/respond.js"):  # fmt: skip
        assert not ignored(path), path


class _Health(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        type(self).seen_host = self.headers["Host"]
        self.send_response(type(self).status)
        self.end_headers()
        self.wfile.write(b'{"status": "ok"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/healthz"
    server.shutdown()


def test_healthcheck_passes_on_200_only(health_server):
    _Health.status = 200
    assert healthcheck.check(health_server, "example.org") == (True, "HTTP 200")
    assert _Health.seen_host == "example.org"
    _Health.status = 503
    healthy, detail = healthcheck.check(health_server, "example.org")
    assert not healthy and detail.startswith("HTTP 503")
    assert not healthcheck.check("http://127.0.0.1:9/healthz", "localhost", timeout=1)[0]
    assert not healthcheck.check("file:///etc/passwd", "localhost")[0]


def test_healthcheck_names_an_allowed_host():
    assert healthcheck.probe_host("") == "localhost"
    assert healthcheck.probe_host("*") == "localhost"
    assert healthcheck.probe_host(" .example.org, api.example.org") == "example.org"
    assert healthcheck.probe_host("localhost,127.0.0.1") == "localhost"
