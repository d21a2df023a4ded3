#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def ensure_var_dir() -> None:
    """Create ``VAR_DIR/static`` (the embedded SQLite file and collected static files live under
    ``VAR_DIR``) so a fresh clone just runs. Here, not in the settings: importing settings must
    create nothing (tests/test_settings_side_effects.py)."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    try:
        static_root = settings.STATIC_ROOT
    except ImproperlyConfigured:
        return  # e.g. prod settings without a secret key: the command reports it itself
    if static_root:
        Path(static_root).mkdir(parents=True, exist_ok=True)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deniable.settings.base")
    from django.core.management import execute_from_command_line

    ensure_var_dir()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
