"""Support code shared by the test suite (``tests/``) and the benchmarks (``bench/``).

Neither ``tests`` nor ``bench`` owns it, so neither has to import the other:

* :mod:`testsupport.factories`: the one place that builds users, surveys, questions,
  submissions, invitations and releases (through the product's own services);
* :mod:`testsupport.services`: "is PostgreSQL / Redis here?" and the skip-or-fail rule for CI;
* :mod:`testsupport.processes`: free ports, ``wait_until`` and a private ``redis-server``;
* :mod:`testsupport.browser`: Debian's Chromium for the Playwright tests.

Nothing in here is imported by the application.
"""
