"""Release results: add exact integer noise to every contribution and debias.

Each question's kind picks its release part (:mod:`dpcore.central.release_parts`: the noise on
its cells or sums, scaled per contribution from the *unit* noise — the derivation is in
:mod:`privacy.services.plan` — and its typed entry); this module gathers the entries into the
typed :class:`~dpcore.central.release_entries.ReleaseResults` and stores its one JSON form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dpcore.central.release_entries import GroupResults, ReleaseEntry, ReleaseResults
from dpcore.central.release_noise import GroupData, Noiser, QuestionRelease
from privacy.models import Release
from privacy.services.sensitivity import release_part
from surveys.models import Question

if TYPE_CHECKING:
    from surveys.selectors import NumberSums


DEFAULT_CONFIDENCE = 0.95


def _question(
    question: Question,
    *,
    noiser: Noiser,
    cells: Mapping[str, Mapping[str, Mapping[str, int]]],
    sums: Mapping[str, Mapping[str, NumberSums]],
    grouped: bool,
    confidence: float,
) -> QuestionRelease:
    """One question's entries: every group's counts of it (or all respondents' when not grouped)."""
    key = question.key
    data = {
        group: GroupData(cells=by_key.get(key), sums=sums.get(group, {}).get(key))
        for group, by_key in cells.items()
    }
    return release_part(question).release(
        key=key,
        kind=question.kind,
        noiser=noiser,
        data=data,
        grouped=grouped,
        confidence=confidence,
    )


def release_results(
    *,
    release: Release,
    counts_cells: Mapping[str, Mapping[str, Mapping[str, int]]],
    questions: Sequence[Question],
    noiser: Noiser,
    counts_sums: Mapping[str, Mapping[str, NumberSums]] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Add noise to every contribution and debias; the results' JSON body. ``counts_cells`` and
    ``counts_sums`` are ``SurveyCounts.cells`` and the exact number sums, by group; ``noiser``
    holds the release's mechanism and its *unit* noise (Δ = 1), scaled per contribution.

    With ``group_by`` only the grouped cells get noise; the overall counts (and number sums) are
    their sums (post-processing, free), whose noise variance is G·V for G groups.
    """
    grouped = bool(release.group_by)
    released = [
        _question(
            q,
            noiser=noiser,
            cells=counts_cells,
            sums=counts_sums or {},
            grouped=grouped,
            confidence=confidence,
        )
        for q in questions
    ]
    groups: list[GroupResults] | None = None
    if grouped:
        by_group: dict[str, list[ReleaseEntry]] = {group: [] for group in counts_cells}
        for question in released:
            for group, entry in question.by_group.items():
                by_group[group].append(entry)
        groups = [GroupResults(group, entries) for group, entries in by_group.items()]
    return ReleaseResults(
        confidence=confidence,
        mechanism=release.mechanism,
        noise_scale=release.noise_scale,
        noise_variance=noiser.unit.variance,
        group_by=release.group_by or None,
        questions=[question.overall for question in released],
        groups=groups,
    ).as_json()
