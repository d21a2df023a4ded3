"""Production settings: the base settings with the secure options forced on."""

from __future__ import annotations

from deniable.settings.base import *
from deniable.settings.base import VAR_DIR, env
from deniable.settings.mail import email_settings

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY")
INVITATION_TOKEN_KEY = env.str("DENIABLE_INVITATION_KEY", default=SECRET_KEY)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# The container health check calls http://127.0.0.1:8000/healthz; a redirect to https would fail it.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# No admin at the well-known /admin/ unless asked for: set DJANGO_ADMIN_URL (e.g. "ops-4f2a/")
# to mount it. Obscurity is not the protection (staff login + lockout are); it keeps scanners off.
ADMIN_URL = env.str("DJANGO_ADMIN_URL", default="")
# Email: only what is configured explicitly (EMAIL_URL or DJANGO_EMAIL_BACKEND); never the console
# fallback of debug mode, whatever DJANGO_DEBUG says (docs/deployment.md#email).
vars().update(email_settings(env, debug=False, var_dir=VAR_DIR))
