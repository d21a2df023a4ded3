"""What a release request's audit entry says (docs/accounts.md#audit): the release and its
parameters, when one was created (the same ``request_id`` again charges and records nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.recording import records

__all__ = ["records"]


def release_requested(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any] | None:
    release, created = result
    if not created:
        return None
    return {
        "id": str(release.id),
        "mechanism": release.mechanism,
        "epsilon": release.epsilon,
        "delta": release.delta,
        "rho": release.rho,
        "questions": list(release.questions),
        "group_by": release.group_by,
        "statistic": release.statistic,
        "quantile": release.quantile,
    }
