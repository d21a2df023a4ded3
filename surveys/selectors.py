"""Reads: surveys for respondents and owners, counts and debiased estimates.

Counts come from the sharded ``Tally`` counter vectors with ONE query (≤ 64 rows per slice
whatever the number of respondents), so estimates cost the same at 10 or 10⁶ respondents and
never load submissions (DESIGN.md §2, issue #3).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import (
    FloatField,
    Func,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from deniable.errors import InvalidInput, NotFound
from dpcore import local as rr
from surveys import designs
from surveys.models import Question, Submission, Survey, Tally
from surveys.tally_layout import (
    RESPONDENTS_SLOT,
    submission_slices,
    submission_vector,
    tally_layout,
)


def _with_questions(qs: QuerySet[Survey]) -> QuerySet[Survey]:
    return qs.prefetch_related(
        Prefetch("questions", queryset=Question.objects.order_by("position", "id"))
    )


def survey_get_public(*, slug: str) -> Survey:
    """A survey respondents may see: NotFound if unknown or still a draft."""
    survey = (
        _with_questions(Survey.objects.exclude(status=Survey.Status.DRAFT))
        .filter(slug=slug)
        .first()
    )
    if survey is None:
        raise NotFound("No such survey.")
    return survey


# Per-process cache of the surveys submissions go to: the submission endpoint is the hot path, and
# the survey + questions lookup was two of its queries. Safe to serve a few seconds stale because
# (1) an open survey's questions and designs are frozen (survey_update refuses non-drafts), and
# (2) whether the survey still accepts answers is re-checked by the submission INSERT itself
# (services.submission_create), so closing a survey takes effect at once in every process.
# Drafts are never cached (they are a 404 until opened).
PUBLIC_SURVEY_TTL_SECONDS = 5.0
_PUBLIC_CACHE_MAX = 1024
_public_cache: dict[str, tuple[float, Survey]] = {}


def survey_get_public_cached(*, slug: str) -> Survey:
    """:func:`survey_get_public` through the per-process cache; read-only use only."""
    now = time.monotonic()
    hit = _public_cache.get(slug)
    if hit is not None and now - hit[0] < PUBLIC_SURVEY_TTL_SECONDS:
        return hit[1]
    survey = survey_get_public(slug=slug)
    list(survey.questions.all())  # the prefetch is evaluated now, once, for every reader
    if len(_public_cache) >= _PUBLIC_CACHE_MAX:
        _public_cache.clear()  # crude but bounded; refilled at one query pair per survey
    _public_cache[slug] = (now, survey)
    return survey


def survey_public_cache_evict(*, slug: str | None = None) -> None:
    """Forget one cached survey (all of them with no slug): after a refused insert, and tests."""
    if slug is None:
        _public_cache.clear()
    else:
        _public_cache.pop(slug, None)


def survey_get_for_owner(*, user: AbstractBaseUser, slug: str) -> Survey:
    """The user's own survey. Someone else's is a 404 (never 403), so existence is not leaked."""
    if not getattr(user, "is_authenticated", False):
        raise NotFound("No such survey.")
    survey = _with_questions(Survey.objects.filter(owner=user, slug=slug)).first()
    if survey is None:
        raise NotFound("No such survey.")
    return survey


class _RespondentsSlot(Func):
    """The respondents slot (0) of a tally vector, in SQL."""

    output_field = FloatField()
    template = "(%(expressions)s)[1]"  # PostgreSQL arrays are 1-based

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, template="json_extract(%(expressions)s, '$[0]')")


def _respondents_subquery() -> Subquery:
    return Subquery(
        Tally.objects.filter(survey=OuterRef("pk"), group_key="")
        .values("survey")
        .annotate(n=Sum(_RespondentsSlot("sums")))
        .values("n")[:1],
        output_field=IntegerField(),
    )


def survey_list_for_owner(*, user: AbstractBaseUser) -> QuerySet[Survey]:
    """The user's surveys, newest first, each annotated with ``respondents``."""
    if not getattr(user, "is_authenticated", False):
        return Survey.objects.none()
    return _with_questions(Survey.objects.filter(owner=user)).annotate(
        respondents=Coalesce(_respondents_subquery(), Value(0))
    )


def survey_respondent_count(*, survey: Survey) -> int:
    total = Tally.objects.filter(survey=survey, group_key="").aggregate(
        n=Sum(_RespondentsSlot("sums"))
    )["n"]
    return int(total or 0)


# --- Counts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumberSums:
    """Sufficient statistics of a number question's answers."""

    n: int
    total: float
    total_sq: float


@dataclass(frozen=True)
class SurveyCounts:
    """Counts of *reports*, from the tallies.

    ``cells[group][question_key][cell_value]``: ``group`` is "" without ``group_by``, else each
    option of the ``group_by`` question (all present, zeros included). Cell values: "yes"/"no" for
    yes_no, each option for choice/category, "" (the number of answers) for number questions,
    whose sums are in ``sums[group][question_key]``. ``respondents`` is the overall total;
    ``group_respondents[group]`` the total per group.
    """

    respondents: int
    cells: dict[str, dict[str, dict[str, int]]]
    sums: dict[str, dict[str, NumberSums]] = field(default_factory=dict)
    group_by: str | None = None
    group_respondents: dict[str, int] = field(default_factory=dict)


def _empty_cells(question: Question) -> dict[str, int]:
    if question.kind == Question.Kind.YES_NO:
        return {"yes": 0, "no": 0}
    if question.kind == Question.Kind.NUMBER:
        return {"": 0}
    return dict.fromkeys(question.options, 0)


def _questions_of(survey: Survey) -> list[Question]:
    return list(survey.questions.all())


def _group_question(questions: Sequence[Question], group_by: str | None) -> Question | None:
    if group_by is None or group_by == "":
        return None
    for q in questions:
        if q.key == group_by:
            if q.kind != Question.Kind.CATEGORY:
                raise InvalidInput.single(
                    "group_by", f"{group_by!r} is not a category question; only those group."
                )
            return q
    raise InvalidInput.single("group_by", f"Unknown question {group_by!r}.")


@dataclass
class _Sums:
    count: int = 0
    total: float = 0.0
    total_sq: float = 0.0


def _slice_totals(survey: Survey, group_by: str | None) -> dict[str | None, list[float]]:
    """ONE query: each slice's vector summed over its shards, element by element, in the
    database (a slice has up to ``TALLY_SHARDS`` rows whatever the number of respondents).
    {group_value (None for all respondents): vector}."""
    qn = connection.ops.quote_name
    if connection.vendor == "postgresql":
        elements, index, value = "unnest(t.sums) WITH ORDINALITY AS u(x, i)", "u.i - 1", "u.x"
    else:  # SQLite: JSON text; json_each's key is the 0-based index
        elements, index, value = "json_each(t.sums) AS u", "u.key", "u.value"
    # Identifiers come from model metadata; every value is a query parameter.
    sql = (
        f"SELECT t.{qn('group_key')}, t.{qn('group_value')}, {index}, sum({value}) "  # noqa: S608
        f"FROM {qn(Tally._meta.db_table)} AS t, {elements} "
        f"WHERE t.{qn('survey_id')} = %s AND t.{qn('group_key')} IN (%s, %s) "
        f"GROUP BY 1, 2, 3"
    )
    totals: dict[str | None, list[float]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [survey.pk, "", group_by or ""])
        for group_key, group_value, i, total in cursor.fetchall():
            vector = totals.setdefault(group_value if group_key else None, [])
            if len(vector) <= i:
                vector.extend([0.0] * (i + 1 - len(vector)))
            vector[i] = float(total)
    return totals


def _add_unsealed(
    survey: Survey, layout: Any, group_by: str | None, totals: dict[str | None, list[float]]
) -> None:
    """Add the unsealed tail's report vectors (not in the tallies yet; releases count them)."""
    rows = Submission.objects.filter(survey=survey, sealed=False).values_list("answers", flat=True)
    for answers in rows:
        vector = submission_vector(layout, answers)
        for group_key, group_value in submission_slices(layout, answers):
            if group_key and group_key != group_by:
                continue
            acc = totals.setdefault(group_value if group_key else None, [])
            acc.extend([0.0] * (len(vector) - len(acc)))
            for i, value in enumerate(vector):
                acc[i] += value


def _tally_sums(
    survey: Survey,
    questions: Sequence[Question],
    group_by: str | None,
    include_unsealed: bool = False,
) -> dict[tuple[str | None, str, str], _Sums]:
    """The slices' totals read through the survey's slot layout:
    {(group_value | None, key, value): sums}.

    ``group_value`` is None for the ungrouped slice; with ``group_by`` both the ungrouped and the
    grouped slices come back from the same query. ``include_unsealed`` adds the submissions not
    yet published in a batch (releases: their noise protects them; estimates never do).
    """
    layout = tally_layout(questions)
    out: dict[tuple[str | None, str, str], _Sums] = {}
    totals = _slice_totals(survey, group_by)
    if include_unsealed:
        _add_unsealed(survey, layout, group_by, totals)
    for group, total in totals.items():
        total.extend([0.0] * (layout.size - len(total)))
        out[(group, "", "")] = _Sums(int(total[RESPONDENTS_SLOT]))
        for (key, value), slot in layout.cells.items():
            out[(group, key, value)] = _Sums(int(total[slot]))
        for key, slot in layout.numbers.items():
            out[(group, key, "")] = _Sums(int(total[slot]), total[slot + 1], total[slot + 2])
    return out


def _counts_from(
    sums: dict[tuple[str | None, str, str], _Sums],
    questions: Sequence[Question],
    group: str | None,
    skip_key: str | None = None,
) -> tuple[int, dict[str, dict[str, int]], dict[str, NumberSums]]:
    respondents = sums.get((group, "", ""), _Sums()).count
    cells: dict[str, dict[str, int]] = {}
    numbers: dict[str, NumberSums] = {}
    for q in questions:
        if q.key == skip_key:
            continue
        cell = _empty_cells(q)
        for value in cell:
            cell[value] = sums.get((group, q.key, value), _Sums()).count
        cells[q.key] = cell
        if q.kind == Question.Kind.NUMBER:
            s = sums.get((group, q.key, ""), _Sums())
            numbers[q.key] = NumberSums(n=s.count, total=s.total, total_sq=s.total_sq)
    return respondents, cells, numbers


def survey_counts(
    *,
    survey: Survey,
    question_keys: Sequence[str] | None = None,
    group_by: str | None = None,
    include_unsealed: bool = False,
) -> SurveyCounts:
    """Report counts per cell (for releases and estimates). Unknown keys → InvalidInput.

    ``include_unsealed``: also the submissions of the batch not yet published (releases)."""
    questions = all_questions = _questions_of(survey)
    group_q = _group_question(questions, group_by)
    if question_keys is not None:
        known = {q.key for q in questions}
        unknown = [k for k in question_keys if k not in known]
        if unknown:
            raise InvalidInput.single("questions", f"Unknown question(s): {', '.join(unknown)}.")
        wanted = set(question_keys)
        questions = [q for q in questions if q.key in wanted]
    sums = _tally_sums(survey, all_questions, group_q.key if group_q else None, include_unsealed)
    respondents, cells, numbers = _counts_from(sums, questions, None)
    if group_q is None:
        return SurveyCounts(
            respondents=respondents,
            cells={"": cells},
            sums={"": numbers},
            group_respondents={"": respondents},
        )
    grouped_cells: dict[str, dict[str, dict[str, int]]] = {}
    grouped_sums: dict[str, dict[str, NumberSums]] = {}
    group_respondents: dict[str, int] = {}
    for option in group_q.options:
        n_g, c_g, s_g = _counts_from(sums, questions, option, skip_key=group_q.key)
        grouped_cells[option], grouped_sums[option], group_respondents[option] = c_g, s_g, n_g
    return SurveyCounts(
        respondents=respondents,
        cells=grouped_cells,
        sums=grouped_sums,
        group_by=group_q.key,
        group_respondents=group_respondents,
    )


# --- Estimates ----------------------------------------------------------------------------------


def validate_confidence(value: Any) -> float:
    """A confidence level strictly between 0 and 1 (strings from query parameters accepted)."""
    try:
        confidence = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput.single("confidence", "A number strictly between 0 and 1.") from None
    if not math.isfinite(confidence) or not 0 < confidence < 1:
        raise InvalidInput.single("confidence", "A number strictly between 0 and 1.")
    return confidence


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _question_header(q: Question) -> dict[str, Any]:
    """The fields every estimates entry starts with (ε and design are None for direct kinds)."""
    return {
        "key": q.key,
        "text": q.text,
        "kind": q.kind,
        "epsilon": designs.question_epsilon(q),
        "design": designs.design_description(q),
    }


def _estimate_fields(est: Any) -> dict[str, float | None]:
    """Point estimate, SE and interval of a BinaryEstimate or an OptionEstimate."""
    return {
        "estimate": _f(est.estimate),
        "estimate_unclipped": _f(est.estimate_unclipped),
        "std_error": _f(est.std_error),
        "ci_low": _f(est.ci_low),
        "ci_high": _f(est.ci_high),
    }


def _binary_entry(q: Question, cells: dict[str, int], confidence: float) -> dict[str, Any]:
    design = designs.question_design(q)
    yes, no = cells["yes"], cells["no"]
    est = rr.estimate_binary(design, n=yes + no, reported_yes=yes, confidence=confidence)
    return {
        **_question_header(q),
        "n": int(est.n),
        "reported_yes": int(est.reported_yes),
        "reported_yes_rate": _f(est.reported_yes_rate),
        **_estimate_fields(est),
    }


def _choice_entry(q: Question, cells: dict[str, int], confidence: float) -> dict[str, Any]:
    design = designs.question_design(q)
    counts = [cells[o] for o in q.options]
    est = rr.estimate_krr(design, counts=counts, confidence=confidence)
    return {
        **_question_header(q),
        "n": int(est.n),
        "options": [
            {
                "option": option,
                "reported": int(o.reported),
                "reported_rate": _f(o.reported_rate),
                **_estimate_fields(o),
            }
            for option, o in zip(q.options, est.options, strict=True)
        ],
    }


def _category_entry(q: Question, cells: dict[str, int]) -> dict[str, Any]:
    n = sum(cells.values())
    return {
        **_question_header(q),
        "n": n,
        "options": [
            {"option": o, "count": cells[o], "share": (cells[o] / n) if n else None}
            for o in q.options
        ],
    }


def _number_entry(q: Question, sums: NumberSums, confidence: float) -> dict[str, Any]:
    """Mean, standard error of the mean (sample SD / √n) and a normal interval."""
    n = sums.n
    finite = math.isfinite(sums.total) and math.isfinite(sums.total_sq)
    mean = sums.total / n if n and finite else None
    std_error = ci_low = ci_high = None
    if n >= 2 and mean is not None:
        # Σx² − n·x̄² cancels when the spread is small beside the mean: its rounding error is at
        # most ~(n + 2)·u·Σx² (u = 2⁻⁵³, float sums of n terms). A computed variance below that
        # bound is rounding noise, not "0": report the bound (a conservative SE), never 0.0 for
        # data that may differ. Bounds |x| ≤ 1e9 keep Σx² finite (surveys.services.surveys).
        rounding = (n + 2) * 2.0**-53 * sums.total_sq / (n - 1)
        variance = (sums.total_sq - n * mean * mean) / (n - 1)
        std_error = math.sqrt(max(variance, rounding) / n)
        half = rr.z_value(confidence) * std_error
        ci_low = max(q.min_value, mean - half)
        ci_high = min(q.max_value, mean + half)
    return {
        **_question_header(q),
        "n": n,
        "min": q.min_value,
        "max": q.max_value,
        "mean": mean,
        "std_error": std_error,
        "ci_low": ci_low,
        "ci_high": ci_high,
    }


def _question_entries(
    questions: Sequence[Question],
    cells: dict[str, dict[str, int]],
    numbers: dict[str, NumberSums],
    confidence: float,
) -> list[dict[str, Any]]:
    out = []
    for q in questions:
        if q.key not in cells:
            continue
        if q.kind == Question.Kind.YES_NO:
            out.append(_binary_entry(q, cells[q.key], confidence))
        elif q.kind == Question.Kind.CHOICE:
            out.append(_choice_entry(q, cells[q.key], confidence))
        elif q.kind == Question.Kind.CATEGORY:
            out.append(_category_entry(q, cells[q.key]))
        else:
            out.append(_number_entry(q, numbers[q.key], confidence))
    return out


def estimate_batch() -> int:
    from surveys.services.batches import estimate_batch as k

    return k()


def survey_estimates(
    *, survey: Survey, confidence: float = 0.95, group_by: str | None = None
) -> dict[str, Any]:
    """The JSON body of GET …/estimates/ (DESIGN.md §8), debiased by ``dpcore.local``.

    One aggregate query over the tallies; with ``group_by`` the same query also returns the cells
    of every group, and the body gains ``"groups": [{"group", "respondents", "questions"}]``.
    """
    confidence = validate_confidence(confidence)
    questions = _questions_of(survey)
    group_q = _group_question(questions, group_by)
    sums = _tally_sums(survey, questions, group_q.key if group_q else None)
    respondents, cells, numbers = _counts_from(sums, questions, None)
    body: dict[str, Any] = {
        "survey": survey.slug,
        "title": survey.title,
        "status": survey.status,
        "respondents": respondents,
        "planned_n": survey.planned_n,
        # Estimates move k submissions at a time (surveys.services.batches).
        "estimate_batch": estimate_batch(),
        "confidence": confidence,
        "epsilon_local_total": designs.epsilon_local_total(questions),
        "questions": _question_entries(questions, cells, numbers, confidence),
    }
    if group_q is not None:
        body["group_by"] = group_q.key
        groups = []
        for option in group_q.options:
            n_g, c_g, s_g = _counts_from(sums, questions, option, skip_key=group_q.key)
            groups.append(
                {
                    "group": option,
                    "respondents": n_g,
                    "questions": _question_entries(questions, c_g, s_g, confidence),
                }
            )
        body["groups"] = groups
    return body
