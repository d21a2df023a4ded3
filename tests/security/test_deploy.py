"""Production settings: Django's deployment checklist, the HTTPS-only headers and cookies, the
admin's address."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings
from django.urls import clear_url_caches

from tests.security.support import PASSWORD_A, load_prod_settings, prod_security_overrides

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_passes_with_production_settings():
    """The same command as the CI step: no warning at all with the production settings."""
    env = {
        # A developer shell (or a browser test) may have this set; production must not.
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "deniable.settings.prod",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        # Production must configure email (accounts.W001 otherwise; docs/deployment.md#email).
        "EMAIL_URL": "smtp+tls://deniable@mail.example.org:587",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Only the one deliberately silenced check (see base.py: username-keyed lockout).
    assert "(1 silenced)" in result.stdout + result.stderr


def test_ci_runs_check_deploy_before_the_tests():
    script = (ROOT / ".ci" / "run").read_text()
    step = script.index("check --deploy --fail-level WARNING")
    assert "deniable.settings.prod" in script[script.rfind("\n\n", 0, step) : step]
    assert step < script.index("\nmake test")


def test_production_refuses_to_start_without_a_secret_key(monkeypatch):
    import importlib

    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    sys.modules.pop("deniable.settings.prod", None)
    with pytest.raises(ImproperlyConfigured):
        importlib.import_module("deniable.settings.prod")
    sys.modules.pop("deniable.settings.prod", None)


def test_production_values():
    prod = load_prod_settings()
    assert prod.DEBUG is False
    assert prod.SECURE_HSTS_SECONDS >= 31536000
    assert prod.SECURE_HSTS_INCLUDE_SUBDOMAINS and prod.SECURE_HSTS_PRELOAD
    assert prod.SECURE_SSL_REDIRECT is True
    assert prod.SESSION_COOKIE_SECURE and prod.CSRF_COOKIE_SECURE and prod.SESSION_COOKIE_HTTPONLY
    assert prod.SESSION_COOKIE_SAMESITE in ("Lax", "Strict")
    assert prod.CSRF_COOKIE_SAMESITE in ("Lax", "Strict")
    assert prod.X_FRAME_OPTIONS == "DENY"
    assert prod.SECURE_CROSS_ORIGIN_OPENER_POLICY == "same-origin"
    assert prod.ADMIN_URL == ""  # no admin unless DJANGO_ADMIN_URL says where
    assert load_prod_settings(DJANGO_ADMIN_URL="ops-7f3a/").ADMIN_URL == "ops-7f3a/"


@pytest.mark.django_db
def test_https_headers_and_cookies_with_production_values(world):
    with override_settings(**prod_security_overrides()):
        client = Client()
        # Plain HTTP is redirected to HTTPS, except the container's health check.
        insecure = client.get("/accounts/login/")
        assert insecure.status_code == 301 and insecure["Location"].startswith("https://")
        assert client.get("/healthz").status_code in (200, 503)

        page = client.get("/accounts/login/", secure=True)
        assert page.status_code == 200
        assert page["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
        csrf = page.cookies["csrftoken"]
        assert csrf["secure"] and csrf["samesite"] == "Lax"

        response = client.post(
            "/accounts/login/", {"username": "alice", "password": PASSWORD_A}, secure=True
        )
        assert response.status_code == 302
        session = response.cookies["sessionid"]
        assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
        # No max-age: the cookie dies with the browser; the server-side expiry is the idle timeout.
        assert not session["max-age"] and not session["expires"]
        assert "Strict-Transport-Security" in response


@pytest.mark.django_db
def test_admin_url_is_configurable_and_absent_in_production(settings, world):
    try:
        settings.ADMIN_URL = ""
        clear_url_caches()
        _reload_urlconf()
        assert Client().get("/admin/").status_code == 404
        settings.ADMIN_URL = "ops-7f3a"
        _reload_urlconf()
        assert Client().get("/admin/").status_code == 404
        moved = Client().get("/ops-7f3a/")
        assert moved.status_code == 302 and "/ops-7f3a/login/" in moved["Location"]
        # A researcher is not staff: the admin sends them to its own login.
        client = Client()
        client.force_login(world.alice)
        assert client.get("/ops-7f3a/").status_code == 302
    finally:
        settings.ADMIN_URL = "admin/"
        _reload_urlconf()


def _reload_urlconf() -> None:
    import importlib

    import deniable.urls

    importlib.reload(deniable.urls)
    clear_url_caches()
