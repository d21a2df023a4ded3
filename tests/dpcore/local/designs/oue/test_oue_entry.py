"""OUE's registration (dpcore/local/designs/oue.py): a spec with ε over the question's k options,
serving the options shape, with its starting spec and schema generated from the registry."""

from __future__ import annotations

import math

import pytest

from dpcore.errors import DesignError
from dpcore.local.designs import DESIGN_NAMES, design_from_spec, design_named
from dpcore.local.oue import OUEDesign


def test_the_spec_builds_the_design_over_k_options():
    design = design_from_spec({"name": "oue", "epsilon": 2.0}, k=7)
    assert isinstance(design, OUEDesign) and (design.k, design.epsilon) == (7, 2.0)
    assert design.to_spec() == {"name": "oue", "epsilon": 2.0}
    assert "oue" in DESIGN_NAMES


def test_the_entry_serves_options_and_starts_at_ln3():
    entry = design_named("oue")
    assert entry.serves == frozenset({"options"})
    assert entry.starting == {"name": "oue", "epsilon": math.log(3)}
    assert entry.schema()["properties"]["epsilon"]["maximum"] == 10.0


@pytest.mark.parametrize(
    ("spec", "field"),
    [({"name": "oue"}, "epsilon"), ({"name": "oue", "epsilon": 1, "k": 3}, "k")],
)
def test_bad_specs_name_the_field(spec, field):
    with pytest.raises(DesignError) as exc:
        design_from_spec(spec, k=5)
    assert exc.value.field == field
