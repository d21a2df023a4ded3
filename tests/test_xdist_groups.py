"""The rules that keep tests together under ``make test``'s ``--dist loadgroup``
(:mod:`testsupport.xdist`), on stand-in items: a wrong rule would either split a module's Chromium
or private service stack across workers, or pin most of the suite to one worker."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from testsupport.xdist import group_items, group_of

ROOT = Path(__file__).resolve().parents[1]


def _suite_fixture() -> None:  # defined under tests/, like a conftest's fixture
    pass


def _item(nodeid: str, *, markers: tuple[str, ...] = (), fixtures: dict[str, Any] | None = None):
    marks: dict[str, Any] = {name: pytest.mark.__getattr__(name)() for name in markers}
    added: list[Any] = []

    def closest(name: str) -> Any:
        return marks.get(name) or next((m.mark for m in added if m.mark.name == name), None)

    defs = {
        name: [SimpleNamespace(scope=scope, func=func)]
        for name, (scope, func) in (fixtures or {}).items()
    }
    return SimpleNamespace(
        nodeid=nodeid,
        config=SimpleNamespace(rootpath=ROOT),
        _fixtureinfo=SimpleNamespace(name2fixturedefs=defs),
        get_closest_marker=closest,
        add_marker=added.append,
        added=added,
    )


def test_integration_tests_share_one_group() -> None:
    a = _item("tests/integration/test_a.py::test_x", markers=("integration",))
    b = _item("tests/integration/test_b.py::test_y", markers=("integration",))
    assert group_of(a) == group_of(b) == "integration"  # type: ignore[arg-type]


@pytest.mark.parametrize("scope", ["module", "class", "package"])
def test_a_shared_fixture_of_the_suite_keeps_its_module_together(scope: str) -> None:
    item = _item("tests/e2e/test_x.py::test_y[1]", fixtures={"browser": (scope, _suite_fixture)})
    assert group_of(item) == "tests/e2e/test_x.py"  # type: ignore[arg-type]


def test_function_and_session_fixtures_and_plugins_group_nothing() -> None:
    item = _item(
        "tests/surveys/test_x.py::test_y",
        fixtures={
            "survey": ("function", _suite_fixture),
            "live_server": ("session", _suite_fixture),
            "_django_setup_unittest": ("class", pytest.fixture),  # a plugin's, outside tests/
            "builtin": ("module", len),
        },
    )
    assert group_of(item) is None  # type: ignore[arg-type]


def test_group_items_marks_only_what_must_stay_together() -> None:
    kept = _item("tests/integration/test_a.py::test_x", markers=("integration",))
    free = _item("tests/surveys/test_x.py::test_y")
    group_items([kept, free], loadgroup=False)  # type: ignore[list-item]
    assert [m.mark.args for m in kept.added] == [("integration",)]
    assert [m.mark.name for m in kept.added] == ["xdist_group"]
    assert free.added == []


class _Item:
    """A stand-in whose node id is read from ``_id``, as pytest 9.2's items are."""

    def __init__(self, name: str, *markers: str) -> None:
        from _pytest.nodeid import NodeId

        self.name, self.parent = name, SimpleNamespace(nodeid="tests/fuzz/test_f.py")
        self._id = NodeId.parse("tests/fuzz/test_f.py::test_api")
        self._marks = {m: pytest.mark.__getattr__(m)() for m in markers}
        self.config = SimpleNamespace(rootpath=ROOT)
        self._fixtureinfo = SimpleNamespace(name2fixturedefs={})

    @property
    def nodeid(self) -> str:
        return str(self._id)

    def get_closest_marker(self, name: str) -> Any:
        return self._marks.get(name)

    def add_marker(self, mark: Any) -> None:
        self._marks[mark.name] = mark


def test_items_sharing_a_node_id_get_their_own_and_groups_their_suffix() -> None:
    """What pytest-xdist schedules by: one id per item (schemathesis gives a function's tests
    one), and ``@<group>`` on a grouped item's id under ``--dist loadgroup``."""
    items = [_Item("test_api[GET /a/]"), _Item("test_api[GET /b/]", "integration")]
    group_items(items, loadgroup=True)  # type: ignore[arg-type]
    assert [item.nodeid for item in items] == [
        "tests/fuzz/test_f.py::test_api[GET /a/]",
        "tests/fuzz/test_f.py::test_api[GET /b/]@integration",
    ]
