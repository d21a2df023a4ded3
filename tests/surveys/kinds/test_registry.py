"""The kind registry: every stored kind resolves, design-selected kinds win, no name twice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from surveys.kinds import column_types, kind_named, kind_of, kinds, stored_kind_choices
from surveys.models import Question


@dataclass
class _Q:
    kind: str
    design: Any = field(default_factory=dict)
    key: str = "q"
    options: Any = field(default_factory=list)


def test_every_stored_kind_has_exactly_one_plain_kind() -> None:
    assert set(stored_kind_choices()) == set(Question.Kind.values)
    for stored in Question.Kind.values:
        assert kind_of(_Q(kind=stored)).stored_kind == stored


def test_cheater_detection_is_selected_by_its_design() -> None:
    cheater = kind_of(_Q(kind="yes_no", design={"name": "cheater_detection", "groups": []}))
    assert cheater.name == "cheater_detection"
    assert kind_of(_Q(kind="yes_no", design={"name": "warner", "p": 0.75})).name == "yes_no"


def test_crosswise_is_selected_by_its_design() -> None:
    crosswise = kind_of(_Q(kind="yes_no", design={"name": "crosswise"}))
    assert crosswise.name == "crosswise"
    assert crosswise.stored_kind == "yes_no"


def test_names_are_unique_and_looked_up() -> None:
    names = [kind.name for kind in kinds()]
    assert len(names) == len(set(names))
    assert kind_named("multi").name == "multi"
    with pytest.raises(KeyError):
        kind_named("nope")
    with pytest.raises(LookupError):
        kind_of(_Q(kind="nope"))


def test_the_exports_column_types_come_from_the_kinds() -> None:
    # The API's column ``type`` enum (ExportColumnSerializer), unchanged since it was written by
    # hand; every type a kind's export columns carry is in it.
    from surveys.api.serializers import ExportColumnSerializer

    assert column_types() == ("integer", "number", "text")
    assert list(ExportColumnSerializer().fields["type"].choices) == list(column_types())
    for kind in kinds():
        assert kind.column_type in column_types(), kind.name
