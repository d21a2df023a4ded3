"""What a shuffled, randomized-only reports file protects (issue 13; docs/formulas.md#shuffling).

:func:`shuffled_export_guarantee` — for the reports export *restricted to the randomized
columns* (rows shuffled, unlinked, direct answers left out), the central (ε, δ) it satisfies for
whoever receives only that file: amplification by shuffling, the numerical bound of Feldman,
McMillan & Talwar 2021 (:mod:`dpcore.central.shuffle`), from n = the rows in the file and each
row's local ε (the sum of the randomized questions' ε: a row is one ε₀-DP report). δ is the
survey's δ. ``None`` when there is nothing to say (no randomized question, a design that is not
DP, fewer than two rows).

It lives in the surveys app (not privacy): the export metadata
(:func:`surveys.analysis.export.export_metadata`, ``…/responses/export/metadata/``) and the
researcher
dashboard (:mod:`surveys.pages.researcher`) show it; surveys never imports the releases app.
"""

from __future__ import annotations

from typing import Any

from dpcore.central import shuffle
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of
from surveys.models import Submission, Survey


def shuffled_export_guarantee(survey: Survey) -> dict[str, Any] | None:
    """The shuffled-export guarantee as a JSON-ready dict (see the module notes)."""
    keys: list[str] = []
    local = 0.0
    for question in survey.questions.all():
        description = designs.design_description(question)
        if description is None:
            continue  # asked directly: left out of the randomized-only file
        eps = description.get("epsilon")
        if eps is None:
            return None  # a one-sided design is not DP: no guarantee to state
        # One 1/0 column per option (multi: ε is already their sum; OUE: ε is the whole
        # answer's): the kind's own columns when its key is not one of them.
        columns = [column for column, _ in kind_of(question).export_columns(question)]
        if designs.is_multi(question) or question.key not in columns:
            keys.extend(columns)
        else:
            keys.append(question.key)
        local += float(eps)
    n = Submission.objects.filter(survey=survey, sealed=True).count()
    if not keys or n < 2:
        return None
    delta = float(survey.budget_delta)
    epsilon = shuffle.shuffled_epsilon(n, local, delta)
    return {
        "applies_to": "the shuffled export restricted to the randomized columns",
        "columns": keys,
        "rows": n,
        "local_epsilon_per_row": local,
        "epsilon": epsilon,
        # Issue 22.12: with few rows the bound is no better than each row's own local ε; only a
        # smaller ε is a guarantee worth announcing (the dashboard shows it only then).
        "gain": epsilon < local,
        "delta": delta,
        "method": "amplification by shuffling (Feldman, McMillan & Talwar 2021, numerical bound)",
        "closed_form_epsilon": shuffle.closed_form_epsilon(n, local, delta),
        "assumptions": list(shuffle.ASSUMPTIONS),
    }
