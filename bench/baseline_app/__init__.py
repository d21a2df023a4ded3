"""Bench-only Django app: the one-row DRF baseline of the submission-throughput benchmark.

It has no migrations on purpose: ``migrate --run-syncdb`` creates its table in the bench database.
"""
