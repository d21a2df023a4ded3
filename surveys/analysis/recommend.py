"""``POST /api/v1/designs/recommend/`` (docs/analysis.md#recommend): the validated request
(``surveys.inputs.analysis.recommend_request``) → :mod:`dpcore.local.recommend`, shaped."""

from __future__ import annotations

import dataclasses
from typing import Any

from deniable.errors import InvalidInput
from dpcore.errors import DesignError
from surveys.definitions.specs import RecommendRequest


def design_recommend(*, request: RecommendRequest) -> dict[str, Any]:
    """The designs of a k-option question at ε, each with one option's variance and interval
    half-width at uniform frequencies (and for a rare option), the smallest recommended."""
    from dpcore.local.recommend import recommend_options_design

    try:
        found = recommend_options_design(
            k=request.options, epsilon=request.epsilon, n=request.n, confidence=request.confidence
        )
    except DesignError as exc:
        # A design no randomizer can run (ε so small that its two probabilities are the same
        # float) is the request's fault: a 400 naming the field, never a 500.
        raise InvalidInput.single(exc.field or "epsilon", exc.message) from None
    return {
        **dataclasses.asdict(request),
        "frequency": found.frequency,
        "recommended": found.recommended,
        "candidates": [
            {
                "design": c.design,
                "variance": c.variance,
                "half_width": c.half_width,
                "rare": {"variance": c.variance_rare, "half_width": c.half_width_rare},
            }
            for c in found.candidates
        ],
    }
