"""The middleware stack (``MIDDLEWARE``) and the shorter one a respondent's JSON submission
takes (``DENIABLE_RESPONDENT_API_MIDDLEWARE``, deniable/respondent_lane.py), in their own module so
the order and the reasons for it are read in one place."""

from __future__ import annotations

MIDDLEWARE_ORDER = [
    "django.middleware.security.SecurityMiddleware",
    "deniable.middleware.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise: static files keep their cache headers, dynamic responses get no-store.
    "deniable.security.SecurityHeadersMiddleware",
    # A respondent's JSON submission leaves here for the shorter DENIABLE_RESPONDENT_API_MIDDLEWARE
    # below: the middlewares that follow are for researchers (deniable/respondent_lane.py).
    "deniable.respondent_lane.RespondentApiLaneMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's LocaleMiddleware for the respondent pages and endpoints only (Accept-Language,
    # then the survey's own languages in the view); everything else stays in LANGUAGE_CODE
    # (docs/translations.md).
    "deniable.locale.RespondentLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # The branded 404 page (handler404) under DEBUG too: `make run` (deniable/not_found.py).
    "deniable.not_found.BrandedNotFoundMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A session signed out elsewhere ("sign out everywhere") ends here, before anything uses it.
    "accounts.sessions.SessionGuardMiddleware",
    # request.user.is_verified(), then the gate: past the password, not the code → code page.
    "django_otp.middleware.OTPMiddleware",
    "accounts.two_factor_gate.TwoFactorGateMiddleware",
    # Who acted, for the audit log: the request is kept for the view (audit.context).
    "audit.context.AuditContextMiddleware",
    "deniable.security.SessionLifetimeMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "deniable.security.ConstantPolicyCSPMiddleware",
    # A database outage answers 503 + Retry-After, not 500 (view exceptions only; inner, so the
    # 503 still gets every header above).
    "deniable.middleware.DatabaseUnavailableMiddleware",
    # Last, as django-axes requires: turns a lockout flagged during the view into its response.
    "axes.middleware.AxesMiddleware",
]
# The middlewares below the lane that a respondent's submission still goes through (the same
# order; why each other one is irrelevant there: deniable.respondent_lane.SKIPPED).
RESPONDENT_API_MIDDLEWARE = [
    "deniable.locale.RespondentLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "deniable.not_found.BrandedNotFoundMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "deniable.security.ConstantPolicyCSPMiddleware",
    "deniable.middleware.DatabaseUnavailableMiddleware",
]
