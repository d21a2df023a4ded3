"""``check --deploy`` on single sign-on (accounts.checks): off is fine; on, it needs an https
issuer, a client id and secret, and an allowed domain or group (docs/accounts.md#sso)."""

from __future__ import annotations


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
