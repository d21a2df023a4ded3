"""Each one-report yes/no design's own hooks (issue 23: the design module owns what used to be
written per design in the apps): its coin/dice device, its spinner slices and its simulated
respondent agree with its c and d; its R call names the design's R model."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpcore.local.designs import design_from_spec, registered

BINARY = [e for e in registered() if e.binary]
WITH_DEVICE = [e for e in BINARY if e.device is not None]
WITH_SECTORS = [e for e in BINARY if e.browser is not None and e.browser.sectors is not None]
WITH_SIMULATION = [e for e in BINARY if e.simulate is not None]


def _starting(entry):
    spec = dict(entry.starting)
    if "innocuous_text" in spec and not spec["innocuous_text"]:
        spec["innocuous_text"] = "I was born in spring."
    return spec


def test_every_one_report_design_can_be_simulated_and_all_but_crosswise_run_on_a_device():
    assert {e.name for e in WITH_SIMULATION} == {e.name for e in BINARY}
    # Crosswise draws nothing: the respondent's own second fact is the randomness.
    assert {e.name for e in BINARY} - {e.name for e in WITH_DEVICE} == {"crosswise"}
    assert {e.name for e in WITH_SECTORS} == {e.name for e in WITH_DEVICE}


@pytest.mark.parametrize("entry", WITH_DEVICE, ids=lambda e: e.name)
def test_the_device_realises_c_and_d(entry):
    design = design_from_spec(_starting(entry))
    chances = dict(entry.device(design.params))
    assert sum(Fraction(p) for p in chances.values()) == pytest.approx(1, abs=1e-12)
    truth, yes, opposite = (Fraction(chances.get(o, 0)) for o in ("truth", "yes", "opposite"))
    # P(yes | trait) = truth + yes = c + d; P(yes | no trait) = yes + opposite = d.
    assert float(truth + yes) == pytest.approx(design.c + design.d, abs=1e-12)
    assert float(yes + opposite) == pytest.approx(design.d, abs=1e-12)


@pytest.mark.parametrize("entry", WITH_SECTORS, ids=lambda e: e.name)
def test_the_spinner_slices_cover_the_wheel(entry):
    design = design_from_spec(_starting(entry))
    sectors = entry.browser.sectors(design.params)
    assert sectors[0][0] == "truth"
    assert all(share > 0 for _, share in sectors)
    assert sum(share for _, share in sectors) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("entry", WITH_SIMULATION, ids=lambda e: e.name)
def test_the_simulated_respondent_reports_yes_at_c_plus_d_and_d(entry):
    design = design_from_spec(_starting(entry))
    spec = design.to_spec()
    rng = np.random.default_rng(20261127)
    n = 40_000
    for truth, expected in ((True, design.c + design.d), (False, design.d)):
        rate = np.mean([entry.simulate(spec, truth, rng.random(), rng) for _ in range(n)])
        # A binomial share's SE is at most 0.5/√n = 0.0025; 5 SE (0.0125) keeps a false failure
        # below 1e-6 while a wrong branch (off by ≥ 0.25 at these starting specs) still fails.
        assert abs(rate - expected) < 5 * 0.5 / np.sqrt(n)


def test_the_r_calls_name_each_designs_model():
    calls = {
        e.name: e.r_call("q", "q", design_from_spec(_starting(e)).to_spec())
        for e in BINARY
        if e.r_call is not None
    }
    assert 'design = "forced-known"' in calls["forced_response"]
    assert 'design = "mirrored"' in calls["warner"]
    assert 'design = "unrelated-known"' in calls["unrelated_question"]
    assert 'model = "Kuk"' in calls["two_probability"]
    assert "crosswise" not in calls
