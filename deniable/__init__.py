"""Django configuration package for Deniable."""

from __future__ import annotations

from deniable.celery import app as celery_app

__all__ = ["celery_app"]
