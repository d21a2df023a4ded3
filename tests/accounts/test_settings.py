"""Email settings from the environment (docs/deployment.md#email): the console in debug mode
(`make run`), EMAIL_URL or DJANGO_EMAIL_BACKEND when set, and in production nothing implicit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import environ
import pytest
from django.conf import settings

from deniable.settings.mail import email_settings
from tests.security.support import load_prod_settings


def _mail(debug: bool = False, **env: str) -> dict[str, Any]:
    saved = dict(os.environ)
    for key in ("EMAIL_URL", "DJANGO_EMAIL_BACKEND", "EMAIL_FILE_PATH"):
        os.environ.pop(key, None)
    os.environ.update(env)
    try:
        return email_settings(environ.Env(), debug=debug, var_dir=Path("/srv/var"))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_make_run_prints_mail_to_the_console():
    assert _mail(debug=True)["EMAIL_BACKEND"].endswith("console.EmailBackend")


def test_without_debug_and_without_configuration_mail_refuses_to_send():
    assert _mail()["EMAIL_BACKEND"] == "accounts.mail.NotConfiguredBackend"


def test_email_url_configures_smtp():
    got = _mail(debug=True, EMAIL_URL="smtp+tls://user:secret@mail.example.org:587")
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"], got["EMAIL_USE_TLS"]) == (
        "mail.example.org",
        587,
        True,
    )
    assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"]) == ("user", "secret")


def test_a_backend_path_is_taken_as_is():
    got = _mail(DJANGO_EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend")
    assert got["EMAIL_BACKEND"].endswith("filebased.EmailBackend")
    assert got["EMAIL_FILE_PATH"] == "/srv/var/mail"


def test_production_never_falls_back_to_the_console():
    prod = load_prod_settings(DJANGO_DEBUG="true")
    assert prod.EMAIL_BACKEND == "accounts.mail.NotConfiguredBackend"
    configured = load_prod_settings(EMAIL_URL="smtp://mail.example.org:25")
    assert configured.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"


def test_defaults():
    assert settings.DENIABLE_OPEN_SIGNUP is False
    assert settings.DENIABLE_API_TOKEN_DAYS == 90
    assert settings.DEFAULT_FROM_EMAIL


@pytest.mark.django_db
def test_the_deploy_check_warns_without_email(settings):
    from django.core.checks import run_checks

    settings.EMAIL_BACKEND = "accounts.mail.NotConfiguredBackend"
    ids = [m.id for m in run_checks(include_deployment_checks=True)]
    assert "accounts.W001" in ids
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert "accounts.W001" not in [m.id for m in run_checks(include_deployment_checks=True)]
