"""Single sign-on settings (docs/accounts.md#sso; accounts/oidc.py), read from the environment;
``base.py`` imports them all.

Off unless ``DENIABLE_OIDC_ISSUER`` is set. mozilla-django-oidc reads the ``OIDC_*`` names; the
provider's endpoints come from its discovery document, not from settings.
"""

from __future__ import annotations

import environ

env = environ.Env()

__all__ = [
    "DENIABLE_OIDC_ALLOWED_DOMAINS",
    "DENIABLE_OIDC_ALLOWED_GROUPS",
    "DENIABLE_OIDC_ISSUER",
    "DENIABLE_OIDC_PROVIDER_NAME",
    "DENIABLE_OIDC_TRUST_MFA",
    "LOGIN_REDIRECT_URL_FAILURE",
    "OIDC_AUTHENTICATION_CALLBACK_URL",
    "OIDC_PKCE_CODE_CHALLENGE_METHOD",
    "OIDC_RP_CLIENT_ID",
    "OIDC_RP_CLIENT_SECRET",
    "OIDC_RP_SCOPES",
    "OIDC_RP_SIGN_ALGO",
    "OIDC_TIMEOUT",
    "OIDC_USE_NONCE",
    "OIDC_USE_PKCE",
]

DENIABLE_OIDC_ISSUER = env.str("DENIABLE_OIDC_ISSUER", default="")
# The login page's button says "Sign in with <this>".
DENIABLE_OIDC_PROVIDER_NAME = env.str("DENIABLE_OIDC_PROVIDER_NAME", default="single sign-on")
# Who may get in: a verified email in one of these domains, or a member of one of these groups
# (the "groups" claim). Neither set: nobody (and check --deploy fails).
DENIABLE_OIDC_ALLOWED_DOMAINS = env.list("DENIABLE_OIDC_ALLOWED_DOMAINS", default=[])
DENIABLE_OIDC_ALLOWED_GROUPS = env.list("DENIABLE_OIDC_ALLOWED_GROUPS", default=[])
# Take the provider's "mfa" in the ID token's amr as the second factor (staff included).
DENIABLE_OIDC_TRUST_MFA = env.bool("DENIABLE_OIDC_TRUST_MFA", default=False)
OIDC_RP_CLIENT_ID = env.str("DENIABLE_OIDC_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env.str("DENIABLE_OIDC_CLIENT_SECRET", default="")
OIDC_RP_SCOPES = env.str("DENIABLE_OIDC_SCOPES", default="openid email profile")
OIDC_RP_SIGN_ALGO = "RS256"
# The authorization-code flow with PKCE (S256) and a nonce, always.
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_USE_NONCE = True
OIDC_TIMEOUT = 10
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc-callback"
LOGIN_REDIRECT_URL_FAILURE = "login"
