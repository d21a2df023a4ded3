"""Constants shared by the account tests (the fixtures are in conftest.py; import this)."""

from __future__ import annotations

PASSWORD = "carol-secure-pw-2024"
