"""Support for the analysis tests (the survey fixtures come from tests/surveys/conftest.py):
a fast way to load many published (sealed) reports, and simulated coin-design reports."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import numpy as np
from scipy.special import expit

from surveys.models import Submission, Survey

TRUE_BETA = (-1.0, 0.9, 0.04)  # intercept, age=old, hours


def load_reports(target: Survey, answers: list[dict[str, Any]]) -> None:
    """Insert published submissions directly (the regression reads ``answers`` of sealed rows)."""
    today = datetime.date(2026, 11, 22)
    Submission.objects.bulk_create(
        [
            Submission(
                id=uuid.uuid4(),
                survey=target,
                randomizer="browser",
                submitted_on=today,
                fingerprint="0" * 64,
                answers=a,
                sealed=True,
            )
            for a in answers
        ],
        batch_size=5000,
    )


def simulated_answers(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    """Coin-design reports (c = ½, d = ¼) of a trait with logit = −1 + 0.9·old + 0.04·hours."""
    old = rng.random(n) < 0.4
    hours = rng.integers(0, 60, n).astype(float)
    trait = rng.random(n) < expit(TRUE_BETA[0] + TRUE_BETA[1] * old + TRUE_BETA[2] * hours)
    report = rng.random(n) < np.where(trait, 0.75, 0.25)
    party = rng.choice(["a", "b", "c", "d"], n)
    return [
        {
            "coin": bool(r),
            "mirror": bool(m),
            "party": str(p),
            "age": "old" if o else "young",
            "hours": float(h),
        }
        for r, m, p, o, h in zip(report, rng.random(n) < 0.5, party, old, hours, strict=True)
    ]
