"""dpcore.central.event_codec: every event type round-trips exactly; bad entries are refused."""

from __future__ import annotations

import math

import pytest

from dpcore.central import event_codec
from dpcore.central.events import (
    EVENT_TYPES,
    BoundedRangeEvent,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    PureDPEvent,
    ShiftedDiscreteLaplaceEvent,
    ZCDPEvent,
)

EXAMPLES = [
    DiscreteLaplaceEvent(0.1 / 3),
    ShiftedDiscreteLaplaceEvent(0.1 / 3, 1001),
    ContinuousLaplaceEvent(0.7),
    PureDPEvent(1.25),
    BoundedRangeEvent(0.3),
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


# ---------------------------------------------------------------- issue 13: parts of a release


def test_shifted_laplace_encoding_keeps_an_integer_shift():
    record = event_codec.encode([ShiftedDiscreteLaplaceEvent(0.1, 1001)] * 2)
    assert record == {
        "type": "shifted_discrete_laplace",
        "epsilon_each": 0.1,
        "shift": 1001,
        "count": 2,
    }
    assert isinstance(record["shift"], int)
    assert event_codec.decode(record) == [ShiftedDiscreteLaplaceEvent(0.1, 1001)] * 2


@pytest.mark.parametrize("shift", [0, -3, 2.0, True, "5"])
def test_shifted_laplace_refuses_a_bad_shift(shift):
    record = {"type": "shifted_discrete_laplace", "epsilon_each": 0.1, "shift": shift, "count": 1}
    with pytest.raises(ValueError):
        event_codec.decode(record)


MIXED_RELEASES = [
    # two histograms, a number question's grid sum (K = 1001) and its count
    [DiscreteLaplaceEvent(0.1)] * 3 + [ShiftedDiscreteLaplaceEvent(0.1, 1001)],
    # discrete Gaussians with different sensitivities
    [DiscreteGaussianEvent(3.5, 1.0)] * 3 + [DiscreteGaussianEvent(3.5 * 1001, 1001.0)],
    [DiscreteLaplaceEvent(0.2), ZCDPEvent(0.1), DiscreteLaplaceEvent(0.2)],
]


@pytest.mark.parametrize("events", MIXED_RELEASES, ids=["laplace", "gaussian", "runs"])
def test_composite_round_trip(events):
    record = event_codec.encode_release(events)
    assert record["type"] == event_codec.COMPOSITE_TAG
    assert set(record) == {"type", "parts"}
    assert all(part["type"] in event_codec.TAGS for part in record["parts"])
    assert event_codec.decode(record) == events


def test_identical_release_is_a_plain_entry():
    events = [DiscreteLaplaceEvent(0.12)] * 5
    assert event_codec.encode_release(events) == event_codec.encode(events)
    with pytest.raises(ValueError):
        event_codec.encode_release([])


def test_the_composite_encoding():
    record = event_codec.encode_release(MIXED_RELEASES[0])
    assert record == {
        "type": "composite",
        "parts": [
            {"type": "discrete_laplace", "epsilon_each": 0.1, "count": 3},
            {"type": "shifted_discrete_laplace", "epsilon_each": 0.1, "shift": 1001, "count": 1},
        ],
    }


@pytest.mark.parametrize(
    "record",
    [
        {"type": "composite", "parts": []},
        {"type": "composite"},
        {"type": "composite", "parts": {"type": "zcdp", "rho": 0.1, "count": 1}},
        {"type": "composite", "parts": [{"type": "zcdp", "rho": 0.1, "count": 1}], "count": 1},
        {"type": "composite", "parts": [{"type": "laplace", "epsilon_each": 0.1, "count": 1}]},
        {
            "type": "composite",
            "parts": [{"type": "composite", "parts": [{"type": "zcdp", "rho": 0.1, "count": 1}]}],
        },
    ],
)
def test_malformed_composites_are_refused(record):
    with pytest.raises(ValueError):
        event_codec.decode(record)


@pytest.mark.parametrize(
    "record",
    [
        {"type": "discrete_laplace", "epsilon_each": 0.05, "count": 4},
        {"type": "zcdp", "rho": 0.02, "count": 1},
        {"type": "discrete_gaussian", "sigma": 3.7, "l2_sensitivity": 2.0, "count": 1},
        {"type": "pure_dp", "epsilon_each": 0.3, "count": 2},
    ],
)
def test_entries_written_before_issue_13_still_decode(record):
    """Old tags keep their meaning: no migration was needed for the new tags."""
    events = event_codec.decode(record)
    assert len(events) == record["count"]
    assert event_codec.encode(events) == record
