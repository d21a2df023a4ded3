"""The vendor-specific SQL of the tally reads (PostgreSQL arrays, SQLite JSON).

Counts come from the sharded ``Tally`` counter vectors with ONE query (≤ 64 rows per slice
whatever the number of respondents), so estimates cost the same at 10 or 10⁶ respondents and
never load submissions (docs/architecture.md#tallies, issue #3).
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import FloatField, Func, IntegerField, OuterRef, Subquery, Sum

from surveys.models import Survey, Tally


class RespondentsSlot(Func):
    """The respondents slot (0) of a tally vector, in SQL."""

    output_field = FloatField()
    template = "(%(expressions)s)[1]"  # PostgreSQL arrays are 1-based

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, template="json_extract(%(expressions)s, '$[0]')")


def respondents_subquery() -> Subquery:
    """Per survey (``OuterRef("pk")``): the respondents of its ungrouped slice."""
    return Subquery(
        Tally.objects.filter(survey=OuterRef("pk"), group_key="")
        .values("survey")
        .annotate(n=Sum(RespondentsSlot("sums")))
        .values("n")[:1],
        output_field=IntegerField(),
    )


def slice_totals(survey: Survey, group_by: str | None) -> dict[str | None, list[float]]:
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
