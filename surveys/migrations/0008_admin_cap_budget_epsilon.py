"""Clamp every survey's budget ε to ``DENIABLE_MAX_BUDGET_EPSILON`` (issue 21, item 2).

Before the cap, any budget was accepted (1e308 included), and one release could then use an ε at
which its noise no longer hides a report. New budgets are checked where they are set (the API's
input, the admin's form); this lowers the ones already stored, once, to the cap in force when the
migration runs. Lowering a budget is always allowed (surveys.definitions.freeze); nothing is spent
by it, and a
survey that already spent more than the cap simply has nothing left.
"""

from __future__ import annotations

from django.conf import settings
from django.db import migrations


def clamp_budgets(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    cap = float(settings.DENIABLE_MAX_BUDGET_EPSILON)
    Survey.objects.filter(budget_epsilon__gt=cap).update(budget_epsilon=cap)


class Migration(migrations.Migration):
    dependencies = [("surveys", "0007_respondent_number_integer")]

    operations = [migrations.RunPython(clamp_budgets, migrations.RunPython.noop)]
