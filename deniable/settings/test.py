"""Test settings: the base settings, made fast and deterministic.

``DATABASE_URL`` still decides the database, so CI runs the suite on PostgreSQL.
"""

from __future__ import annotations

from deniable.settings.base import *

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Unit tests run tasks in-process; integration tests start a real worker with their own settings.
CELERY_TASK_ALWAYS_EAGER = True
# django-axes stays on in tests, as in production: a test that logs in without a request must
# use ``force_login`` (axes refuses ``authenticate()`` without one). Tests that need it off
# override AXES_ENABLED themselves.
AXES_ENABLED = True
# Most tests submit and then read estimates or counts; batches of 1 publish each submission at
# once. The batching tests (tests/surveys/test_unlinkability.py) set their own k.
DENIABLE_ESTIMATE_BATCH = 1
# Staff sessions made with force_login have no second factor; the two-factor tests
# (tests/accounts/test_two_factor*.py) turn the requirement on themselves.
DENIABLE_OTP_STAFF = False
