"""Simulated respondents for the demo and the statistical tests — NOT privacy noise.

These functions play the respondent's device: given a *true* answer they apply the exact
randomization protocol of the question's design and return the report. They take a seeded
``numpy.random.Generator`` on purpose, so demos and tests are reproducible. Real respondents
randomize in their own browser with ``crypto.getRandomValues`` (or a physical coin); the server
never randomizes answers and never sees the truth.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dpcore.local.designs import BINARY_DESIGN_NAMES, design_named


def randomize_yes_no(spec: Mapping[str, Any], truth: bool, rng: np.random.Generator) -> bool:
    """The reported answer under a one-report yes/no design spec (each design's ``simulate``)."""
    name = spec["name"]
    simulate = design_named(name).simulate if name in BINARY_DESIGN_NAMES else None
    if simulate is None:
        raise ValueError(f"not a binary design: {name!r}")
    return simulate(spec, truth, rng.random(), rng)


def randomize_cheater(
    spec: Mapping[str, Any], status: str, rng: np.random.Generator
) -> dict[str, Any]:
    """Cheating detection: ``{"group", "report"}`` for a respondent whose ``status`` is
    "honest_yes", "honest_no" or "cheater" (answers "no" whatever the device says). The group is
    drawn ½ each, then that group's forced response (truth, forced YES, forced NO)."""
    group = 1 + int(rng.random() < 0.5)
    g = spec["groups"][group - 1]
    u = rng.random()
    if status == "cheater":
        return {"group": group, "report": False}
    if u < g["p_yes"]:
        return {"group": group, "report": True}
    if u < g["p_yes"] + g["p_no"]:
        return {"group": group, "report": False}
    return {"group": group, "report": status == "honest_yes"}


def randomize_choice(
    options: Sequence[str], keep_probability: float, truth: str, rng: np.random.Generator
) -> str:
    """k-RR: keep the true option with ``keep_probability``, else a uniform *other* option."""
    if rng.random() < keep_probability:
        return truth
    others = [o for o in options if o != truth]
    return others[int(rng.integers(len(others)))]


def randomize_multi(
    spec: Mapping[str, Any], truths: Mapping[str, bool], rng: np.random.Generator
) -> dict[str, bool]:
    """Multi-select: each option's truth through the shared yes/no design, independently."""
    return {option: randomize_yes_no(spec, truth, rng) for option, truth in truths.items()}


def submission_uuid(rng: np.random.Generator) -> uuid.UUID:
    """A uuid4 drawn from the simulation's generator (so re-running a seed is idempotent)."""
    return uuid.UUID(bytes=rng.bytes(16), version=4)
