"""Exact sums of number answers, for central-DP releases (issue 11, item 9).

A release's number question is released as U = round(S/s) plus noise of sensitivity K = ⌈B/s⌉ + 1
(:func:`dpcore.central.sensitivity.sum_sensitivity`). That bound needs |S(D′) − S(D)| ≤ B when one
respondent is added or removed; the float sums kept in the tallies only meet it up to their
accumulation error, which grows with n, so the release used to *refuse* past ~1.4–2.1 million
answers — a noise-free function of n, i.e. a data-dependent failure (ε = ∞, probe-able for free).

Here S is computed **exactly**: every stored answer is a double, i.e. an integer multiple of
2⁻¹⁰⁷⁴, so the sum of the answers scaled by 2¹⁰⁷⁴ is an exact integer sum and S is an exact
rational. Each answer is also clamped to the question's declared bounds (a no-op on stored data,
which was checked on submission; it makes |x| ≤ B hold by construction). So S(D′) − S(D) = ±x
with |x| ≤ B exactly, the rounding argument alone gives K, and no respondent count can make a
release fail. Releases read the stored submissions once (they are rare; estimates keep reading
the tallies).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from surveys.kinds import kind_of
from surveys.models import Question, Submission, Survey

# Every finite double is an integer multiple of 2**-1074 (the smallest subnormal).
_SCALE = 1 << 1074
CHUNK = 5000


def _scaled(x: float) -> int:
    numerator, denominator = x.as_integer_ratio()  # denominator: a power of two ≤ 2**1074
    return numerator * (_SCALE // denominator)


def _bounds(question: Question) -> tuple[float, float]:
    """The declared bounds; a release only takes bounded number questions (privacy.services.plan
    refuses the others), so a missing bound here is a caller's error, not user input."""
    bounds = question.bounds
    if bounds is None:
        raise ValueError(f"number question {question.key!r} has no bounds")
    return float(bounds[0]), float(bounds[1])


def number_sums_exact(
    *, survey: Survey, questions: Sequence[Question], group_by: Question | None
) -> dict[str, dict[str, tuple[int, Fraction]]]:
    """{group: {question key: (n, exact sum)}} over the survey's published submissions.

    ``group`` is "" without ``group_by``, else each option of that category question (all
    present); a submission that did not answer the ``group_by`` question is in no group, as in
    the tallies. Non-number questions are ignored.
    """
    numbers = [q for q in questions if kind_of(q).tally_moments]
    groups = list(group_by.options) if group_by is not None else [""]
    acc: dict[str, dict[str, list[int]]] = {g: {q.key: [0, 0] for q in numbers} for g in groups}
    if not numbers:
        return {g: {} for g in groups}
    bounds = {q.key: _bounds(q) for q in numbers}
    # Published batches only, as the release's counts (DESIGN §8.5: never the unpublished tail).
    rows = Submission.objects.filter(survey=survey, sealed=True).values_list("answers", flat=True)
    for answers in rows.iterator(chunk_size=CHUNK):
        if group_by is None:
            group = ""
        else:
            group = answers.get(group_by.key)
            if group not in acc:
                continue
        slots = acc[group]
        for key, (lo, hi) in bounds.items():
            value = answers.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            slot = slots[key]
            slot[0] += 1
            slot[1] += _scaled(min(max(float(value), lo), hi))
    return {
        g: {key: (n, Fraction(total, _SCALE)) for key, (n, total) in by_key.items()}
        for g, by_key in acc.items()
    }
