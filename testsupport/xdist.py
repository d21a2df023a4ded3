"""How the suite is split across pytest-xdist workers (``make test`` runs ``-n auto --dist
loadgroup``): rules by marker and fixture scope, so a new test needs no bookkeeping.

Every worker has its own test database (pytest-django), its own private Redis for the cache
(``tests/conftest.py``), its own ``live_server`` on a kernel-chosen port and its own temp dirs,
so a test goes to whichever worker is free. Two kinds of test are kept together instead:

* **A module with a module-, class- or package-scoped fixture** (the e2e modules' Chromium, the
  fault tests' private PostgreSQL/Redis/gunicorn/Celery stack, a coverage table computed once):
  all its tests run on one worker, so the fixture is built once, not once per worker.
* **The ``integration`` tests** run one after another on one worker: they start real Celery
  workers, a private PostgreSQL cluster and load generators and bound latencies under load, so
  two such stacks at once on a 2-core machine would measure each other.

pytest-xdist sends a group as one unit, the biggest groups first; ungrouped tests follow one or
two at a time to whichever worker is idle. Without ``--dist loadgroup`` (a serial run, or
``-n`` with another mode) the marks change nothing.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

SHARED_SCOPES = frozenset({"module", "class", "package"})


def _shares_a_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # not a Python function (e.g. a doctest): nothing shared to keep together
        return False
    # Only the suite's own fixtures (plugins' class-scoped autouse helpers would match everything).
    suite = item.config.rootpath / "tests"
    return any(
        defs[-1].scope in SHARED_SCOPES and _defined_under(defs[-1].func, suite)
        for defs in info.name2fixturedefs.values()
        if defs
    )


def _defined_under(func: object, folder: Path) -> bool:
    try:
        return Path(inspect.getfile(func)).is_relative_to(folder)  # type: ignore[arg-type]
    except TypeError:  # a builtin: not the suite's
        return False


def group_of(item: pytest.Item) -> str | None:
    """The ``xdist_group`` name for ``item``, or ``None`` to let it run on any worker."""
    if item.get_closest_marker("integration"):
        return "integration"
    if _shares_a_fixture(item):
        return item.nodeid.split("::", 1)[0]
    return None


def set_nodeid(item: pytest.Item, nodeid: str) -> None:
    """Replace an item's node id: pytest 9.2 keeps it as a ``NodeId`` in ``_id`` (a private
    attribute; pytest-xdist 3.8 still writes ``_nodeid``, which pytest 9.2 no longer reads, so its
    own ``--dist loadgroup`` suffix is lost and groups would silently not be kept together)."""
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(nodeid)
    else:  # pytest < 9.2
        item._nodeid = nodeid  # type: ignore[attr-defined]


def group_items(items: list[pytest.Item], *, loadgroup: bool) -> None:
    """Give every item a node id of its own, mark each item that must stay with others
    (:func:`group_of`; an ``xdist_group`` mark set by hand is kept), and under ``--dist
    loadgroup`` append ``@<group>`` to a grouped item's id, which is how the scheduler sees it.

    pytest-xdist sends tests to workers by node id, so items sharing one would all run as the
    first of them: schemathesis gives every operation's test the function's bare node id
    (``test_schemathesis.py::test_api_authenticated``), which made 62 of its 64 tests silently
    not run. Such items get the id pytest would give them, the module's id and the item's name.
    """
    seen: dict[str, int] = {}
    for item in items:
        seen[item.nodeid] = seen.get(item.nodeid, 0) + 1
    for item in items:
        if seen[item.nodeid] > 1 and item.parent is not None:
            set_nodeid(item, f"{item.parent.nodeid}::{item.name}")
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is None:
            name = group_of(item)
            if name is None:
                continue
            item.add_marker(pytest.mark.xdist_group(name))
        else:
            name = str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        if loadgroup and "@" not in item.nodeid:
            set_nodeid(item, f"{item.nodeid}@{name}")
