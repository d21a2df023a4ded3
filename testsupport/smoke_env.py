"""The environment a fresh clone's ``make run`` gets in the smoke job: the developer's or CI's
settings for the suite (its database, Redis, Django and Deniable settings, the venv, pytest's and
make's own variables) are not inherited, so the clone runs on its embedded defaults as a new user's
would (tests/smoke/)."""

from __future__ import annotations

import re

NOT_INHERITED = re.compile(
    r"^(DATABASE_URL|REDIS_URL|DJANGO_.*|DENIABLE_.*|VIRTUAL_ENV|PYTHONPATH|PYTEST_.*|"
    r"MAKEFLAGS|MFLAGS|MAKELEVEL|CI)$"
)
