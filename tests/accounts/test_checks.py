"""``check --deploy`` (accounts.checks): production must require a second factor of staff
(docs/accounts.md#two-factor), checked here with the production settings module as an operator
runs it; single sign-on off is fine, on it needs an https issuer, a client id and secret, and an
allowed domain or group (docs/accounts.md#sso)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_deploy_check_refuses_a_half_configured_single_sign_on(settings):
    from django.core.checks import run_checks

    def ids() -> set[str]:
        found = run_checks(include_deployment_checks=True)
        return {m.id for m in found if m.id and m.id.startswith("accounts.E00")}

    settings.DENIABLE_OIDC_ISSUER = ""
    assert ids() & {"accounts.E002", "accounts.E003", "accounts.E004"} == set()  # off: fine
    settings.DENIABLE_OIDC_ISSUER = "http://login.uni.example"
    settings.DENIABLE_OIDC_ALLOWED_DOMAINS = []
    settings.DENIABLE_OIDC_ALLOWED_GROUPS = []
    settings.OIDC_RP_CLIENT_ID = ""
    assert {"accounts.E002", "accounts.E003", "accounts.E004"} <= ids()
    settings.DENIABLE_OIDC_ISSUER = "https://login.uni.example"
    settings.DENIABLE_OIDC_ALLOWED_GROUPS = ["researchers"]
    settings.OIDC_RP_CLIENT_ID = "deniable"
    settings.OIDC_RP_CLIENT_SECRET = "s3cret"
    assert ids() & {"accounts.E002", "accounts.E003", "accounts.E004"} == set()


def _check_deploy(**env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py check --deploy`` as an operator runs it, with the production settings."""
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
            "DJANGO_SETTINGS_MODULE": "deniable.settings.prod",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
            "EMAIL_URL": "smtp+tls://deniable@mail.example.org:587",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("value", ["false", "0", "off", "no"])
def test_production_without_a_second_factor_for_staff_fails_the_deploy_check(value):
    """The issue's condition, end to end: the production settings module with staff's second
    factor turned off (however it is spelled) fail ``check --deploy`` at its default level,
    errors only, naming accounts.E001; the same settings with it on (the default) pass."""
    refused = _check_deploy(DENIABLE_OTP_STAFF=value)
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "accounts.E001" in refused.stderr and "DENIABLE_OTP_STAFF" in refused.stderr
    assert "ERRORS:" in refused.stderr


def test_production_with_a_second_factor_for_staff_passes_the_deploy_check():
    passed = _check_deploy()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "accounts.E001" not in passed.stdout + passed.stderr
