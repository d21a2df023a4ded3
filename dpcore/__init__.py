"""The pure differential-privacy core of Deniable: numpy and the standard library only.

* :mod:`dpcore.local` — randomized response (local DP): designs, estimates, intervals, planning,
  the browser's integer thresholds;
* :mod:`dpcore.central` — central DP releases: exact noise samplers, privacy events and their
  ledger codec, accountants, calibration, sensitivity and the released estimates;
* :mod:`dpcore.validation`, :mod:`dpcore.errors`, :mod:`dpcore.stats` — shared by both.

Never imports Django or the apps (an import-linter contract in ``pyproject.toml`` and
``tests/dpcore/test_import_without_django.py`` enforce it).
"""
