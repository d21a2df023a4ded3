"""The composed ledger state (dpcore.central.ledger_state): the bound a charge uses when the
ledger moved while the tight figure was computed. Property: for random ledgers it is never
below the tight (exact/PLD) ε, it equals the accountant's own basic/zCDP/RDP candidates, and
composing one event at a time gives the same state as composing all at once."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.central import accounting, ledger_state

events = st.one_of(
    st.builds(accounting.DiscreteLaplaceEvent, st.floats(0.01, 2.0)),
    st.builds(accounting.ShiftedDiscreteLaplaceEvent, st.floats(0.01, 2.0), st.integers(1, 20)),
    st.builds(accounting.PureDPEvent, st.floats(0.01, 2.0)),
    st.builds(accounting.DiscreteGaussianEvent, st.floats(1.0, 1e6), st.sampled_from([1.0, 2.0])),
    st.builds(accounting.ContinuousGaussianEvent, st.floats(0.5, 50.0), st.just(1.0)),
    st.builds(accounting.ZCDPEvent, st.floats(1e-6, 1.0)),
)


@settings(max_examples=40, deadline=None)
@given(ledger=st.lists(events, min_size=1, max_size=12), delta=st.sampled_from([1e-3, 1e-6]))
def test_bound_is_sound_and_is_the_accountants_own_candidates(ledger, delta) -> None:
    state = ledger_state.compose(ledger_state.EMPTY, ledger)
    one_by_one = ledger_state.EMPTY
    for ev in ledger:
        one_by_one = ledger_state.compose(one_by_one, [ev])
    tight = accounting.epsilon_spent(ledger, delta)
    ours = ledger_state.bound(state, delta)
    stepwise = ledger_state.bound(one_by_one, delta)
    assert ours.epsilon >= tight.epsilon
    assert stepwise.epsilon >= tight.epsilon
    assert stepwise.epsilon == pytest.approx(ours.epsilon, rel=1e-12)
    for name in ("basic", "zcdp", "rdp"):
        assert ours.candidates[name] >= tight.candidates[name]
        assert ours.candidates[name] == pytest.approx(tight.candidates[name], rel=1e-10)
    # Round trip through the database's JSON (no Infinity in jsonb).
    stored = json.loads(json.dumps(ledger_state.to_json(state), allow_nan=False))
    assert ledger_state.from_json(stored) == state


def test_empty_and_malformed_states() -> None:
    assert ledger_state.bound(ledger_state.EMPTY, 1e-6).epsilon == 0.0
    assert ledger_state.from_json(None) is None
    assert ledger_state.from_json({"orders": [1.5], "rdp": [0.0]}) is None
    good = ledger_state.to_json(ledger_state.EMPTY)
    assert ledger_state.from_json({**good, "rho": -1.0}) is None
    assert ledger_state.from_json({**good, "rdp": good["rdp"][:-1]}) is None


def test_overflowing_events_give_infinity_never_an_error() -> None:
    state = ledger_state.compose(ledger_state.EMPTY, [accounting.PureDPEvent(1e300)] * 3)
    assert state.rho == math.inf  # ε² overflows: ∞, stored as null
    assert ledger_state.bound(state, 1e-6).epsilon >= 3e300
    huge = ledger_state.compose(state, [accounting.PureDPEvent(1.7e308)] * 2)
    assert ledger_state.bound(huge, 1e-6).epsilon == math.inf
    assert ledger_state.from_json(ledger_state.to_json(state)) == state
