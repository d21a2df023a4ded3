"""The 10-question survey every DB benchmark uses (a mix of all four kinds) and a valid answer."""

from __future__ import annotations

from typing import Any

SURVEY_BODY: dict[str, Any] = {
    "title": "Bench: ten questions",
    "planned_n": 1000,
    "budget": {"epsilon": 1000.0, "delta": 1e-6},  # room for many releases
    "questions": [
        {"key": "q1", "text": "Yes/no (coin)?", "kind": "yes_no"},
        {"key": "q2", "text": "Yes/no (warner)?", "kind": "yes_no",
         "design": {"name": "warner", "p": 0.75}},
        {"key": "q3", "text": "Yes/no (forced)?", "kind": "yes_no"},
        {"key": "q4", "text": "Yes/no (forced)?", "kind": "yes_no"},
        {"key": "q5", "text": "Choice of 4?", "kind": "choice", "options": ["a", "b", "c", "d"],
         "design": {"name": "k_rr", "epsilon": 1.0}},
        {"key": "q6", "text": "Choice of 3?", "kind": "choice", "options": ["x", "y", "z"],
         "design": {"name": "k_rr", "epsilon": 2.0}},
        {"key": "q7", "text": "Age group", "kind": "category",
         "options": ["18-29", "30-49", "50+"]},
        {"key": "q8", "text": "Region", "kind": "category", "options": ["north", "south"]},
        {"key": "q9", "text": "Hours", "kind": "number", "min": 0, "max": 80},
        {"key": "q10", "text": "Score", "kind": "number", "min": -5, "max": 5},
    ],
}  # fmt: skip

ANSWERS: dict[str, Any] = {
    "q1": True, "q2": False, "q3": True, "q4": False, "q5": "c", "q6": "y",
    "q7": "30-49", "q8": "south", "q9": 12.5, "q10": -1.5,
}  # fmt: skip


def create_open_survey(*, title_suffix: str = "", slug: str | None = None) -> Any:
    """Create and open the bench survey through the product's own services (the shared
    factory, :func:`testsupport.factories.make_survey`)."""
    from django.test import override_settings

    from bench.stack import bench_owner
    from testsupport.factories import make_survey

    body = {**SURVEY_BODY, "title": SURVEY_BODY["title"] + title_suffix}
    # Above the product's budget cap on purpose: room for many timed releases.
    with override_settings(DENIABLE_MAX_BUDGET_EPSILON=SURVEY_BODY["budget"]["epsilon"]):
        return make_survey(bench_owner(), body, slug=slug)
