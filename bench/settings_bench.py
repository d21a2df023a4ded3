"""Bench-only settings: the product's base settings plus the DRF baseline endpoint (issue 5).

Never used by the product: the baseline app and its URL exist only under these settings, so
``deniable.urls`` ships without them. HTTP (no TLS redirect), DEBUG off, like production otherwise.
"""

from __future__ import annotations

from deniable.settings.base import *  # noqa: F403
from deniable.settings.base import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench.baseline_app"]
ROOT_URLCONF = "bench.urls_bench"
DEBUG = False
