"""Django configuration package for Deniable."""

from __future__ import annotations

import os

# One BLAS thread per process, set before anything imports numpy (every entry point — manage.py,
# gunicorn's deniable.wsgi, `celery -A deniable`, the settings module — imports this package
# first). The web workers and the Celery pool already use the cores; OpenBLAS's own threads on
# top of them spin against each other: a regression fit took 100–200 ms with the default
# threads on a busy 2-core machine against 2 ms with one (bench/RESULTS.md §8). An operator's
# own setting wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from deniable.celery import app as celery_app  # noqa: E402

__all__ = ["celery_app"]
