"""dpcore.central.event_codec: every event type round-trips exactly; bad entries are refused."""

from __future__ import annotations

import math

import pytest

from dpcore.central import event_codec
from dpcore.central.events import (
    EVENT_TYPES,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    PureDPEvent,
    ZCDPEvent,
)

EXAMPLES = [
    DiscreteLaplaceEvent(0.1 / 3),
    ContinuousLaplaceEvent(0.7),
    PureDPEvent(1.25),
    DiscreteGaussianEvent(3.731, math.sqrt(5)),
    ContinuousGaussianEvent(2.0, 1.0),
    ZCDPEvent(math.nextafter(0.05, math.inf)),
]


def test_every_event_type_has_one_tag():
    assert {type(ev) for ev in EXAMPLES} == set(EVENT_TYPES)
    assert len({event_codec.encode([ev])["type"] for ev in EXAMPLES}) == len(EVENT_TYPES)


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda ev: type(ev).__name__)
@pytest.mark.parametrize("count", [1, 4])
def test_round_trip_is_exact(event, count):
    record = event_codec.encode([event] * count)
    assert record["count"] == count
    assert event_codec.decode(record) == [event] * count


def test_the_release_encoding():
    record = event_codec.encode([DiscreteLaplaceEvent(0.12)] * 5)
    assert record == {"type": "discrete_laplace", "epsilon_each": 0.12, "count": 5}
    assert event_codec.encode([ZCDPEvent(0.05)]) == {"type": "zcdp", "rho": 0.05, "count": 1}


@pytest.mark.parametrize(
    "record",
    [
        {"type": "laplace", "epsilon_each": 0.1, "count": 1},
        {"type": "pure", "epsilon": 0.1},
        {"type": "gaussian", "sigma": 1.0, "l2_sensitivity": 1.0, "count": 1},
        {"type": "discrete_laplace", "epsilon_each": 0.1},
        {"type": "discrete_laplace", "epsilon_each": 0.1, "count": 0},
        {"type": "discrete_laplace", "epsilon_each": 0.1, "count": True},
        {"type": "discrete_laplace", "epsilon_each": "0.1", "count": 1},
        {"type": "discrete_laplace", "epsilon_each": 0.1, "count": 1, "discrete": False},
        {"type": "zcdp", "rho": -1.0, "count": 1},
        ["zcdp"],
    ],
)
def test_malformed_entries_are_refused(record):
    with pytest.raises(ValueError):
        event_codec.decode(record)


def test_encode_refuses_mixed_or_empty_lists():
    with pytest.raises(ValueError):
        event_codec.encode([])
    with pytest.raises(ValueError):
        event_codec.encode([ZCDPEvent(0.1), ZCDPEvent(0.2)])
