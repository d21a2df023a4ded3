"""Cheating detection (Clark & Desharnais 1998; the symmetric CDMsym of Ostapczuk et al. 2009): two
groups drawn ½ each, each a forced-response device ``{p_yes, p_no}``; reports ``{group, report}``.
Its design type, estimator and planning: :mod:`dpcore.local.cheater`."""

from __future__ import annotations

from typing import Final

from dpcore.local import cheater
from dpcore.local.designs._registry import DesignEntry, Param, register

__all__ = ["ENTRY"]

_FORCED = (
    Param("p_yes", "probability", "P(forced YES)", "P(forced yes) in this group."),
    Param("p_no", "probability", "P(forced NO)", "P(forced no) in this group."),
)

ENTRY: Final = register(
    DesignEntry(
        name=cheater.NAME,
        title="Cheating detection (two groups; estimates cheaters too)",
        order=70,
        params=(
            Param(
                "groups",
                "groups",
                "Group",
                "Two groups (drawn ½ each), each {p_yes, p_no}: forced yes/no > 0, sum < 1; the "
                "two must differ. Reports are {group, report}.",
                fields=_FORCED,
                count=2,
            ),
        ),
        serves=frozenset({"binary"}),
        # Group 1 forced YES/NO ¼/¼ (ε = ln 3), group 2 forced YES ½, NO ¼ (ε = ln 2); both run
        # exactly on coins.
        starting={
            "name": cheater.NAME,
            "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
        },
        build=lambda spec, k: cheater.design_from_spec(spec),
        grouped=True,
    )
)
