"""Base settings, read from the environment.

With no ``DATABASE_URL`` and no ``REDIS_URL`` the app runs on embedded defaults: SQLite under
``var/`` and Celery tasks executed in-process (eager). With them set, the same code uses that
database, a Redis cache and a real Celery worker.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONCE, NONE, SELF

from deniable.settings.database import database_settings
from deniable.settings.logs import logging_settings
from deniable.settings.mail import email_settings
from deniable.settings.middleware import MIDDLEWARE_ORDER, RESPONDENT_API_MIDDLEWARE
from deniable.settings.openapi import OPENAPI_SETTINGS
from deniable.settings.sso import *

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(environ.Env().str("DENIABLE_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()
# The SQLite database and collected static files live under VAR_DIR. Importing settings creates
# nothing: ``manage.py`` (and so ``make run``) and the image's build create the directory.

DEBUG = env.bool("DJANGO_DEBUG", default=False)
# The default key is only for the embedded, local set-up; prod.py refuses to start without one.
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="insecure-local-only-0f1c2e9b7d5a4c3b8e6f")
# Invitation tokens are stored as HMAC digests under a key of their own, so rotating the session
# key does not orphan outstanding invitations.
INVITATION_TOKEN_KEY = env.str("DENIABLE_INVITATION_KEY", default=SECRET_KEY)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    # Researcher login lockout; it sees login attempts only, never a respondent request.
    "axes",
    # Two-factor login (TOTP and recovery codes; accounts/two_factor.py).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "accounts",
    "surveys",
    "privacy",
    "audit",
]

MIDDLEWARE = MIDDLEWARE_ORDER  # deniable/settings/middleware.py (why each is where it is)
DENIABLE_RESPONDENT_API_MIDDLEWARE = RESPONDENT_API_MIDDLEWARE

ROOT_URLCONF = "deniable.urls"
WSGI_APPLICATION = "deniable.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = database_settings(env, var_dir=VAR_DIR)  # deniable/settings/database.py
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # A hung Redis must not hang a request: fail fast, the callers degrade gracefully.
            "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery -------------------------------------------------------------------------------------
# Embedded mode runs tasks in-process (eager); with REDIS_URL a real worker consumes the queue.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_IGNORE_RESULT = True
# With defaults a hung Redis makes ``.delay()`` block for minutes; these make it fail in seconds.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": 2,
    "socket_connect_timeout": 2,
    "max_retries": 1,
    "visibility_timeout": 600,
}
CELERY_BROKER_POOL_LIMIT = 4
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULE: dict = {
    # Re-enqueue releases stuck pending (broker was down at request time) or running past the
    # hard time limit (worker killed); see privacy.services.releases_sweep.
    "privacy-releases-sweep": {
        "task": "privacy.tasks.releases_sweep",
        # Seconds; shorter only in tests (tests/integration/test_beat_sweeper.py).
        "schedule": env.float("DENIABLE_RELEASE_SWEEP_SECONDS", default=60.0),
    },
    # Webhook deliveries left pending (broker down at publication): surveys.webhooks.services.
    "surveys-webhook-deliveries-sweep": {
        "task": "surveys.tasks.webhook_deliveries_sweep",
        "schedule": 300.0,
    },
    # Open surveys whose closing time has passed are closed (their unpublished tail shuffled or
    # published, their shuffled file made): surveys.services.closing.
    "surveys-close-due": {
        "task": "surveys.tasks.surveys_close_due",
        # Seconds; shorter only in tests (tests/integration/test_beat_sweeper.py).
        "schedule": env.float("DENIABLE_CLOSE_SWEEP_SECONDS", default=60.0),
    },
    # Batches that came due while their last submissions committed together, unseen by each
    # (PostgreSQL): published instead of waiting for the next submission. surveys.services.batches.
    "surveys-publish-stranded": {
        "task": "surveys.tasks.submissions_publish_stranded",
        "schedule": env.float("DENIABLE_PUBLISH_SWEEP_SECONDS", default=60.0),
    },
}
# Releases: pending longer than this, or running longer than the task's hard time limit (150 s)
# plus a margin, are re-enqueued by the sweeper.
DENIABLE_RELEASE_PENDING_STALE_SECONDS = env.int(
    "DENIABLE_RELEASE_PENDING_STALE_SECONDS", default=120
)
DENIABLE_RELEASE_RUNNING_STALE_SECONDS = env.int(
    "DENIABLE_RELEASE_RUNNING_STALE_SECONDS", default=210
)

# --- Webhooks (docs/api.md#webhooks) -----------------------------------------------------------
# Off in production: a hook's URL must resolve to public addresses only (SSRF), and be https.
DENIABLE_WEBHOOK_ALLOW_PRIVATE = env.bool("DENIABLE_WEBHOOK_ALLOW_PRIVATE", default=False)
DENIABLE_WEBHOOK_ALLOW_HTTP = env.bool("DENIABLE_WEBHOOK_ALLOW_HTTP", default=False)
# Retries: attempt n+1 waits BACKOFF·2^(n-1) seconds (at most 10 minutes), MAX_ATTEMPTS in all.
DENIABLE_WEBHOOK_BACKOFF = env.float("DENIABLE_WEBHOOK_BACKOFF", default=10.0)
DENIABLE_WEBHOOK_MAX_ATTEMPTS = env.int("DENIABLE_WEBHOOK_MAX_ATTEMPTS", default=6)

# --- Security headers (every environment; prod.py adds the HTTPS-only ones) ---------------------
# A strict CSP: scripts only from our origin or with the per-request nonce, no inline handlers,
# no third-party origins at all (the coin flip must be auditable and cannot be swapped by a CDN).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# Idle timeout: a session unused for 30 minutes expires (the expiry slides with every request,
# SESSION_SAVE_EVERY_REQUEST); SessionLifetimeMiddleware caps any session at a working day.
# Respondents have no session at all (empty sessions are never saved), so this costs them nothing.
SESSION_COOKIE_AGE = env.int("DENIABLE_SESSION_IDLE_SECONDS", default=30 * 60)
SESSION_SAVE_EVERY_REQUEST = True
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
DENIABLE_SESSION_MAX_AGE_SECONDS = env.int("DENIABLE_SESSION_MAX_AGE_SECONDS", default=8 * 3600)
# Powerful browser features no page here uses; denying them limits what injected code could do.
# Only features every current browser knows (an unknown one is a console error in Chromium).
DENIABLE_PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=()"
)
# The admin's address; prod.py mounts no admin unless DJANGO_ADMIN_URL is set.
ADMIN_URL = env.str("DJANGO_ADMIN_URL", default="admin/")

# --- Auth, i18n, static ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# AxesStandaloneBackend first: it refuses a locked-out username before any password is checked.
# The single sign-on backend before it: it answers only the callback of a sign-in (the provider
# authenticated the person; django-axes counts passwords and codes typed here).
AUTHENTICATION_BACKENDS = [
    "accounts.oidc.DeniableOIDCBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Lockout: 5 failures lock the *username* for 15 minutes, whatever the address (an attacker
# rotating IPs gets no more guesses). Trade-off: anyone can lock a researcher out for 15 minutes;
# the token endpoint and the login page share the counter.
AXES_ENABLED = True
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes.W006 wants 'ip_address' in the lockout key. Deliberately not: behind the reverse proxy
# the address is either the proxy's (one researcher's typos would lock everyone out) or a
# client-supplied X-Forwarded-For (free to rotate, or to forge a victim's). A username-keyed
# lockout is not bypassed by rotating user agents, cookies or addresses, which is W006's concern.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "deniable.security.lockout_response"
# Axes' log lines name the username and path only, never the client's IP or user agent.
AXES_CLIENT_STR_CALLABLE = "deniable.security.axes_client_str"
AXES_VERBOSE = False
# No per-login access log rows (IP + user agent of every successful login); failures are kept in
# axes' attempt table, which holds researcher IPs only (respondent requests never reach axes).
AXES_DISABLE_ACCESS_LOG = True
LOGIN_URL = "login"
# Password-reset links stay valid this long (Django's default is three days).
PASSWORD_RESET_TIMEOUT = env.int("DENIABLE_PASSWORD_RESET_SECONDS", default=2 * 3600)
LOGIN_REDIRECT_URL = "researcher-home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages a survey may declare (docs/translations.md#languages). The respondent interface
# has catalogues for en and es (locale/); any other listed language shows the survey's own
# translated content with the interface in English.
LANGUAGES = [
    ("en", "English"),
    ("es", "Spanish"),
    ("fr", "French"),
    ("de", "German"),
    ("pt", "Portuguese"),
    ("it", "Italian"),
    ("nl", "Dutch"),
    ("pl", "Polish"),
    ("tr", "Turkish"),
    ("ru", "Russian"),
    ("ar", "Arabic"),
    ("he", "Hebrew"),
    ("fa", "Persian"),
    ("hi", "Hindi"),
    ("zh-hans", "Simplified Chinese"),
    ("ja", "Japanese"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Serve straight from the app/static dirs too, so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- API ------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First: DRF takes the 401 challenge from the first class (accounts/authentication.py).
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # NaN/±inf → null in every JSON body (deniable/renderers.py, docs/exports.md).
    "DEFAULT_RENDERER_CLASSES": ["deniable.renderers.FiniteJSONRenderer"],
    # DRF's JSON parser plus a depth cap and NUL/surrogate checks (deniable/json_input.py).
    "DEFAULT_PARSER_CLASSES": ["deniable.api.CheckedJSONParser"],
    "EXCEPTION_HANDLER": "deniable.api_errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = OPENAPI_SETTINGS  # deniable/settings/openapi.py

# --- Accounts (docs/accounts.md) ---------------------------------------------------------------
# Anyone may create a researcher account at /accounts/signup/ when on; else by invitation only.
DENIABLE_OPEN_SIGNUP = env.bool("DENIABLE_OPEN_SIGNUP", default=False)
# Two-factor login (docs/accounts.md#two-factor): required for staff (check --deploy fails
# without it), and for every researcher when DENIABLE_OTP_REQUIRED is on.
DENIABLE_OTP_STAFF = env.bool("DENIABLE_OTP_STAFF", default=True)
DENIABLE_OTP_REQUIRED = env.bool("DENIABLE_OTP_REQUIRED", default=False)
OTP_TOTP_ISSUER = "Deniable"
# One counter for wrong codes: django-axes' (5 failures, passwords and codes together, lock the
# username). django-otp's own per-device back-off would also refuse a right code typed within
# seconds of a typo, with a message of its own.
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_STATIC_THROTTLE_FACTOR = 0
# Single sign-on (OpenID Connect), off unless DENIABLE_OIDC_ISSUER is set: settings/sso.py.
# Sign-up invitation links expire after this many days (the page and command may choose 1–90).
DENIABLE_SIGNUP_INVITATION_DAYS = env.int("DENIABLE_SIGNUP_INVITATION_DAYS", default=7)
# API tokens: default and longest lifetime in days, and unexpired tokens per researcher.
DENIABLE_API_TOKEN_DAYS = env.int("DENIABLE_API_TOKEN_DAYS", default=90)
DENIABLE_API_TOKEN_MAX_DAYS = env.int("DENIABLE_API_TOKEN_MAX_DAYS", default=365)
DENIABLE_API_TOKENS_PER_USER = env.int("DENIABLE_API_TOKENS_PER_USER", default=50)
# Sign-up form posts per hour (all visitors together) and password-reset requests per hour, per
# address and in total; 0 = no limit. Keyed by what is attempted, never by client address.
DENIABLE_SIGNUP_RATE_LIMIT = env.int("DENIABLE_SIGNUP_RATE_LIMIT", default=30)
DENIABLE_RESET_RATE_LIMIT_PER_EMAIL = env.int("DENIABLE_RESET_RATE_LIMIT_PER_EMAIL", default=3)
DENIABLE_RESET_RATE_LIMIT = env.int("DENIABLE_RESET_RATE_LIMIT", default=60)

# --- Email (docs/deployment.md#email; deniable/settings/mail.py) --------------------------------
vars().update(email_settings(env, debug=DEBUG, var_dir=VAR_DIR))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Deniable <deniable@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Logging: never answers, tokens, IPs or user agents -------------------------------------------
LOGGING = logging_settings(level=env.str("LOG_LEVEL", default="INFO"))
# Log respondent routes (gunicorn, django.request, django.server) anyway: debugging only.
DENIABLE_LOG_RESPONDENT_REQUESTS = env.bool("DENIABLE_LOG_RESPONDENT_REQUESTS", default=False)

# --- Abuse limits ---------------------------------------------------------------------------------
# Largest request body accepted anywhere (a 100-question survey definition fits well inside).
DENIABLE_MAX_REQUEST_BYTES = env.int("DENIABLE_MAX_REQUEST_BYTES", default=1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = DENIABLE_MAX_REQUEST_BYTES
# Largest XLSForm upload (surveys/xlsform/reader.py; docs/input-limits.md#xlsform).
DENIABLE_XLSFORM_MAX_BYTES = env.int("DENIABLE_XLSFORM_MAX_BYTES", default=1024 * 1024)
# Above this many published respondents a regression is fitted by a task (202 + progress) instead
# of in the request (surveys/analysis/regression_jobs.py; docs/analysis.md).
DENIABLE_REGRESSION_SYNC_LIMIT = env.int("DENIABLE_REGRESSION_SYNC_LIMIT", default=1_000_000)
# Submissions accepted per survey per window (fixed window, cache-backed, fails open); 0 = off.
DENIABLE_SUBMISSION_RATE_LIMIT = env.int("DENIABLE_SUBMISSION_RATE_LIMIT", default=6000)
# Posts that could not be stored (invalid, no/unknown/spent token), per sender and window: they
# never spend a survey's allowance above (surveys/collection/admission.py, issue 21 item 13).
DENIABLE_JUNK_RATE_LIMIT = env.int("DENIABLE_JUNK_RATE_LIMIT", default=60)
DENIABLE_SUBMISSION_RATE_WINDOW_SECONDS = 60
DENIABLE_RATE_LIMIT_BACKOFF_SECONDS = 30

# --- Estimates batching (issue 11, items 1 and 10; surveys.services.batches) ------------------
# Researchers' estimates, respondent counts and exports change only when k new submissions have
# arrived: every change aggregates at least k respondents' reports (k-anonymity of the change),
# and the batch's rows are re-written together, so a database copy orders submissions and joins
# used invitations only batch by batch. 1 publishes every submission at once (no protection).
DENIABLE_ESTIMATE_BATCH = env.int("DENIABLE_ESTIMATE_BATCH", default=10)

# --- Product defaults -----------------------------------------------------------------------------
DENIABLE_DEFAULT_BUDGET_EPSILON = 1.0
DENIABLE_DEFAULT_BUDGET_DELTA = 1e-6
# The largest survey budget ε (issue 21, item 2; surveys.definitions.freeze.budget_epsilon_error):
# above it a
# release could use an ε at which its noise no longer hides one report.
DENIABLE_MAX_BUDGET_EPSILON = env.float("DENIABLE_MAX_BUDGET_EPSILON", default=10.0)
