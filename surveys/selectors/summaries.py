"""Per-survey figures that other apps own, for the survey lists (docs/architecture.md#dependencies).

The survey list (page and API) shows each survey's privacy budget left, which the releases app
(``privacy``) computes from its ledger. ``surveys`` never imports ``privacy`` (an import-linter
contract), so the releases app registers its function here when it is ready
(``privacy.apps.PrivacyConfig.ready``); without the app every survey's budget left is its whole
budget, which is then true: no release can have spent any.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from surveys.models import Survey

# surveys → {survey pk: ε remaining}; one call for the whole list.
BudgetRemaining = Callable[[Sequence[Survey]], dict[int, float]]

_budget_remaining: BudgetRemaining | None = None


def register_budget_remaining(function: BudgetRemaining) -> None:
    global _budget_remaining
    _budget_remaining = function


def budget_remaining(surveys: Sequence[Survey]) -> dict[int, float]:
    """ε remaining of each survey, by pk."""
    if _budget_remaining is None:
        return {s.pk: s.budget_epsilon for s in surveys}
    return _budget_remaining(surveys)
