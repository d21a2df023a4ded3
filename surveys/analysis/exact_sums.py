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

On PostgreSQL the sum is taken by the database, in ``numeric`` (exact decimal arithmetic): JSONB
keeps each answer as the decimal it was sent as (the shortest text of the double), the bounds go
in as the exact decimals of their doubles, and S = Σ clamp(x) is then an exact rational again —
the argument above only needs each respondent's term to be one fixed number with |x| ≤ B, summed
without error. Reading 10⁶ answer documents into Python took 9–16 s per release (the release
bench's 10⁶ survey); one aggregate takes well under a second (bench/RESULTS.md §3). SQLite reads
JSON numbers back as doubles, so it keeps the Python sum of the scaled doubles.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from django.db import connection

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
    if not numbers:
        return {g: {} for g in groups}
    bounds = {q.key: _bounds(q) for q in numbers}
    if connection.vendor == "postgresql":
        return _sums_in_sql(survey, bounds, group_by, groups)
    return _sums_in_python(survey, bounds, group_by, groups)


def _sums_in_python(
    survey: Survey,
    bounds: dict[str, tuple[float, float]],
    group_by: Question | None,
    groups: list[str],
) -> dict[str, dict[str, tuple[int, Fraction]]]:
    """Any backend: the stored doubles, scaled to integers and summed exactly (module notes)."""
    acc: dict[str, dict[str, list[int]]] = {g: {key: [0, 0] for key in bounds} for g in groups}
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


def _sums_in_sql(
    survey: Survey,
    bounds: dict[str, tuple[float, float]],
    group_by: Question | None,
    groups: list[str],
) -> dict[str, dict[str, tuple[int, Fraction]]]:
    """PostgreSQL: the same (n, exact sum) per group and key, by one aggregate in ``numeric``
    (module notes). A JSON value that is not a number (absent, null, a boolean) is skipped, as
    in the Python path; so is a group value that is not one of the options."""
    table = connection.ops.quote_name(Submission._meta.db_table)
    # The type name of a JSON number, asked of one (not written out: tests/test_quoted_names.py).
    is_number = "jsonb_typeof(answers -> %s) = jsonb_typeof('0'::jsonb)"
    columns: list[str] = []
    params: list[str | Decimal] = []
    for key, (lo, hi) in bounds.items():
        columns.append(f"count(*) FILTER (WHERE {is_number})")
        columns.append(
            "sum(LEAST(GREATEST((answers ->> %s)::numeric, %s::numeric), %s::numeric)) "
            f"FILTER (WHERE {is_number})"
        )
        # Decimal(float) is the double's exact value: the clamp is to the declared bounds.
        params += [key, key, Decimal(lo), Decimal(hi), key]
    group_sql = "answers ->> %s" if group_by is not None else "''"
    group_params: list[str] = [group_by.key] if group_by is not None else []
    sql = (
        f"SELECT {group_sql}, {', '.join(columns)} FROM {table} "  # noqa: S608
        'WHERE "survey_id" = %s AND "sealed" GROUP BY 1'
    )
    out: dict[str, dict[str, tuple[int, Fraction]]] = {
        g: {key: (0, Fraction(0)) for key in bounds} for g in groups
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, [*group_params, *params, survey.pk])
        for group, *figures in cursor.fetchall():
            if group not in out:
                continue
            for i, key in enumerate(bounds):
                n, total = figures[2 * i], figures[2 * i + 1]
                out[group][key] = (int(n), Fraction(total) if total is not None else Fraction(0))
    return out
