"""Reading the counter vectors back, independently of the code under test (survey tests)."""

from __future__ import annotations

import math
from typing import Any

from surveys.collection.tally_layout import tally_layout
from surveys.models import Survey, Tally


def tally_totals() -> dict[tuple[int, str, str], list[float]]:
    """Every slice's counter vector summed over its shards: {(survey id, group_key, group_value):
    vector}. Summed here (``math.fsum``: exact, whatever the row order), independently of the
    code under test; a slice's shards must all have the same length."""
    shards: dict[tuple[int, str, str], list[list[float]]] = {}
    rows = Tally.objects.values_list("survey_id", "group_key", "group_value", "sums")
    for survey_id, group_key, group_value, sums in rows:
        shards.setdefault((survey_id, group_key, group_value), []).append(sums)
    totals: dict[tuple[int, str, str], list[float]] = {}
    for key, vectors in shards.items():
        assert len({len(v) for v in vectors}) == 1, key
        totals[key] = [math.fsum(column) for column in zip(*vectors, strict=True)]
    return totals


def slice_counts(survey: Survey, group_key: str = "", group_value: str = "") -> dict[str, Any]:
    """One slice's summed vector read through the survey's slot layout:
    {"respondents": n, "cells": {(key, value): n}, "numbers": {key: (n, sum, sum of squares)}}
    (all zeros for a slice without rows)."""
    layout = tally_layout(survey.questions.order_by("position", "id"))
    vector = tally_totals().get((survey.pk, group_key, group_value), [0.0] * layout.size)
    assert len(vector) == layout.size
    return {
        "respondents": vector[0],
        "cells": {cell: vector[slot] for cell, slot in layout.cells.items()},
        "numbers": {key: tuple(vector[slot : slot + 3]) for key, slot in layout.numbers.items()},
    }
