"""Migration 0003: reports become each submission's ``answers`` and the tallies are recounted as
counter vectors, with the counts the reports gave.

The test migrates the surveys app back to 0002, writes data with the historical models, migrates
to 0003 and checks it; the database is migrated forward to the latest state in any case, so the
other tests see the current schema.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from surveys import selectors
from surveys.collection.tally_layout import tally_layout
from surveys.models import TALLY_SHARDS, Submission, Survey, Tally

BEFORE = [("surveys", "0002_report_submission_index_covered_by_unique")]
AFTER = [("surveys", "0003_answers_on_submission_tally_vectors")]

QUESTIONS: list[dict[str, Any]] = [
    {"key": "coin", "kind": "yes_no", "options": []},
    {"key": "party", "kind": "choice", "options": ["a", "b", "c"]},
    {"key": "age", "kind": "category", "options": ["young", "old"]},
    {"key": "hours", "kind": "number", "options": []},
    {"key": "region", "kind": "category", "options": ["north", "south", "east"]},
    {"key": "mirror", "kind": "yes_no", "options": []},
]
CELLS = {
    "coin": ["yes", "no"],
    "party": ["a", "b", "c"],
    "age": ["young", "old"],
    "hours": [""],
    "region": ["north", "south", "east"],
    "mirror": ["yes", "no"],
}


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()  # see the new applied state
    return executor


def _migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _random_answers(rng: np.random.Generator) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    if rng.random() < 0.9:  # a submission without reports must still count as a respondent
        answers["coin"] = bool(rng.random() < 0.5)
        answers["party"] = str(rng.choice(["a", "b", "c"]))
        answers["mirror"] = bool(rng.random() < 0.3)
    if rng.random() < 0.7:
        answers["age"] = str(rng.choice(["young", "old"]))
    if rng.random() < 0.6:
        answers["region"] = str(rng.choice(["north", "south", "east"]))
    if rng.random() < 0.8:  # whole numbers too: 12.0 must stay a float (not become 12)
        whole = rng.random() < 0.5
        answers["hours"] = float(rng.integers(0, 80)) if whole else float(rng.uniform(0, 80))
    return answers


def _old_data(apps: Any) -> tuple[int, int, dict[uuid.UUID, dict[str, Any]]]:
    """Two surveys in the 0002 schema: one with reports (and old-style tallies), one empty."""
    User = apps.get_model("auth", "User")
    Survey0002 = apps.get_model("surveys", "Survey")
    Question0002 = apps.get_model("surveys", "Question")
    Submission0002 = apps.get_model("surveys", "Submission")
    Report0002 = apps.get_model("surveys", "Report")
    Tally0002 = apps.get_model("surveys", "Tally")

    owner = User.objects.create(username="migrator")
    survey = Survey0002.objects.create(owner=owner, title="Old", slug="old-survey", status="open")
    empty = Survey0002.objects.create(owner=owner, title="Empty", slug="empty-survey")
    questions = {
        spec["key"]: Question0002.objects.create(
            survey=survey,
            key=spec["key"],
            position=i,
            text=spec["key"],
            kind=spec["kind"],
            options=spec["options"],
            min_value=0.0 if spec["kind"] == "number" else None,
            max_value=80.0 if spec["kind"] == "number" else None,
        )
        for i, spec in enumerate(QUESTIONS)
    }
    Question0002.objects.create(survey=empty, key="q", position=0, text="q", kind="yes_no")

    rng = np.random.default_rng(2003)
    expected: dict[uuid.UUID, dict[str, Any]] = {}
    for _ in range(60):
        sid = uuid.UUID(bytes=rng.bytes(16), version=4)
        answers = _random_answers(rng)
        sub = Submission0002.objects.create(
            id=sid,
            survey=survey,
            randomizer="browser",
            submitted_on=date(2026, 1, 2),
            fingerprint="f" * 64,
        )
        for key, value in answers.items():
            q = questions[key]
            Report0002.objects.create(
                submission=sub,
                question=q,
                value_bool=value if q.kind == "yes_no" else None,
                value_text=value if q.kind in ("choice", "category") else None,
                value_number=value if q.kind == "number" else None,
            )
        if "age" not in answers and rng.random() < 0.5:
            # A report without a value is no answer.
            Report0002.objects.create(submission=sub, question=questions["age"])
        expected[sid] = answers
    # Old-style tally cells (dropped by the migration and recounted).
    Tally0002.objects.create(survey=survey, question_key="", value="", count=len(expected))
    Tally0002.objects.create(survey=survey, question_key="coin", value="yes", count=1)
    return survey.pk, empty.pk, expected


def _groups(answers_list: list[dict[str, Any]], group_by: str | None) -> dict[str, list[dict]]:
    if group_by is None:
        return {"": answers_list}
    return {o: [a for a in answers_list if a.get(group_by) == o] for o in CELLS[group_by]}


def _recount(answers_list: list[dict[str, Any]], group_by: str | None) -> dict[str, Any]:
    groups = _groups(answers_list, group_by)
    cells: dict[str, dict[str, dict[str, int]]] = {}
    for group, members in groups.items():
        cells[group] = {k: dict.fromkeys(v, 0) for k, v in CELLS.items() if k != group_by}
        for answers in members:
            for key, value in answers.items():
                if key == group_by:
                    continue
                if isinstance(value, bool):
                    value = "yes" if value else "no"
                cells[group][key]["" if key == "hours" else value] += 1
    return {"groups": {g: len(m) for g, m in groups.items()}, "cells": cells}


@pytest.mark.django_db(transaction=True)
def test_reports_become_answers_and_tallies_are_recounted():
    try:
        executor = _migrate(BEFORE)
        apps = executor.loader.project_state(BEFORE).apps
        assert "report" in {m._meta.model_name for m in apps.get_app_config("surveys").get_models()}
        survey_id, empty_id, expected = _old_data(apps)

        executor = _migrate(AFTER)
        assert executor.loader.applied_migrations.keys() >= set(AFTER)
        # The historical models of 0003 (no Report, Submission.answers).
        apps = executor.loader.project_state(AFTER).apps
        models = {m._meta.model_name for m in apps.get_app_config("surveys").get_models()}
        assert "report" not in models

        assert not Submission.objects.filter(survey_id=empty_id).exists()
        stored = dict(Submission.objects.filter(survey_id=survey_id).values_list("id", "answers"))
        assert stored.keys() == expected.keys()

        # The checks below read through today's models and selectors, which need the columns
        # added after 0003 (0006: optional questions, translations); the later migrations leave
        # answers and tallies as 0003 wrote them.
        _migrate_to_latest()
        survey = Survey.objects.get(pk=survey_id)
        layout = tally_layout(survey.questions.order_by("position", "id"))
        tallies = list(Tally.objects.filter(survey=survey))
        slices = {(t.group_key, t.group_value) for t in tallies}
        assert slices == {("", "")} | {
            (key, a[key]) for a in expected.values() for key in ("age", "region") if key in a
        }
        for t in tallies:
            assert len(t.sums) == layout.size and 0 <= t.shard < TALLY_SHARDS
        assert not Tally.objects.filter(survey_id=empty_id).exists()

        assert selectors.survey_respondent_count(survey=survey) == len(expected)
        answers_list = list(expected.values())
        for group_by in (None, "age", "region"):
            counts = selectors.survey_counts(survey=survey, group_by=group_by)
            want = _recount(answers_list, group_by)
            assert counts.group_respondents == want["groups"], group_by
            assert counts.cells == want["cells"], group_by
            for group, members in _groups(answers_list, group_by).items():
                hours = [a["hours"] for a in members if "hours" in a]
                sums = counts.sums[group]["hours"]
                assert sums.n == len(hours)
                assert sums.total == pytest.approx(sum(hours), rel=1e-12)
                assert sums.total_sq == pytest.approx(sum(h * h for h in hours), rel=1e-12)

        # Each submission's answers are exactly its reports: same keys, same values, same types
        # (bool for yes_no, str for choice/category, float for number — also a whole number).
        wrong = {
            (str(sid), key): (stored[sid].get(key), value)
            for sid, answers in expected.items()
            for key, value in answers.items()
            if stored[sid].get(key) != value or type(stored[sid].get(key)) is not type(value)
        }
        assert wrong == {}, f"{len(wrong)} wrong answers (stored, reported): {wrong}"
        assert stored == expected
    finally:
        _migrate_to_latest()
